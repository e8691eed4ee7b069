// What an alert reports, kept with the alert row as JSON: the facts, not a rendered text, so the message
// is built in the channel's language when it is sent (presentation/notify-messages.ts). Pure.
import type { Mode } from './records.js';

export type AlertFacts =
  | {
      kind: 'payment_received';
      merchantName: string;
      mode: Mode;
      trxid: string;
      /** What the payer paid (the total, unique code included). */
      amount: number;
      ref: string | null;
      description: string | null;
      payerName: string | null;
      issuer: string | null;
      paidAt: number;
    }
  | {
      kind: 'payment_unmatched';
      merchantName: string;
      mode: Mode;
      paymentId: string;
      amount: number;
      reference: string | null;
      payerName: string | null;
      issuer: string | null;
      reason: string | null;
      paidAt: number;
    }
  | {
      kind: 'webhook_failing';
      merchantName: string;
      endpointId: string;
      url: string;
      failures: number;
      at: number;
    }
  | { kind: 'test'; merchantName: string; at: number };

/** The facts stored with an alert, read back; null when they are not an alert's (a row changed by hand). */
export function readAlertFacts(json: string): AlertFacts | null {
  try {
    const facts = JSON.parse(json) as { kind?: unknown; merchantName?: unknown };
    const kinds = ['payment_received', 'payment_unmatched', 'webhook_failing', 'test'];
    return typeof facts === 'object' &&
      facts !== null &&
      kinds.includes(String(facts.kind)) &&
      typeof facts.merchantName === 'string'
      ? (facts as AlertFacts)
      : null;
  } catch {
    return null;
  }
}
