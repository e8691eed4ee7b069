// What a notification or a query answer says about a payment, and how it reaches record-payment.
// Notification and query of the same payment use the same sourcePaymentId (the acquirer's
// referenceNo), so whichever arrives second is a duplicate.
import type { Deps } from '../../services/deps.js';
import { recordPayment, type RecordPaymentResult } from '../../services/payments/record-payment.js';
import { deleteSnapPoll } from '../../storage/queries/snap.js';
import type { TransactionsTable } from '../../storage/schema.js';
import type { SnapSource } from './config.js';
import { parseSnapTimestamp } from './signature.js';

export interface SnapPaymentFacts {
  /** Whole rupiah, or null when the message carries no amount. */
  amount: number | null;
  paidAt: number | null;
  issuer: string | null;
  payerName: string | null;
  /** The retrieval reference number of the payer's bank, when given. */
  rrn: string | null;
}

export class FactError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

// additionalInfo differs by provider; these are the names seen in the wild, first match wins.
const ISSUER = ['issuerName', 'issuer', 'issuerBank', 'acquirerName', 'paymentChannel', 'brandName'];
const PAYER = ['payerName', 'customerName', 'buyerName', 'payer', 'senderName'];
const RRN = ['rrn', 'issuerRrn', 'retrievalReferenceNo', 'issuerReferenceNo'];
const PAID_TIME = ['paidTime', 'transactionDate', 'paidAt', 'finishedTime'];

function pick(sources: Array<Record<string, unknown>>, names: string[]): string | null {
  for (const o of sources) {
    for (const name of names) {
      const v = o[name];
      if (typeof v === 'string' && v.trim() !== '') return v.trim().slice(0, 200);
      // Some providers nest the payer: {"payer": {"name": ...}}.
      const nested = typeof v === 'object' && v !== null ? (v as { name?: unknown }).name : undefined;
      if (typeof nested === 'string' && nested.trim() !== '') return nested.trim().slice(0, 200);
    }
  }
  return null;
}

const AMOUNT = /^([0-9]{1,13})(?:\.([0-9]{1,2}))?$/;

/** Reads a notify body or a query answer; FactError names a field that is present but malformed. */
export function paymentFacts(body: Record<string, unknown>): SnapPaymentFacts {
  const info =
    typeof body.additionalInfo === 'object' && body.additionalInfo !== null
      ? (body.additionalInfo as Record<string, unknown>)
      : {};
  const both = [body, info];
  let amount: number | null = null;
  if (body.amount !== undefined && body.amount !== null) {
    const a = body.amount as { value?: unknown; currency?: unknown };
    const m = typeof a === 'object' && typeof a.value === 'string' ? AMOUNT.exec(a.value) : null;
    if (!m) throw new FactError('amount.value', 'amount.value must be a decimal string such as "10000.00"');
    // Rupiah has no minor unit in QRIS; a fraction would make the amount check meaningless.
    if (m[2] !== undefined && Number(m[2]) !== 0)
      throw new FactError('amount.value', 'amount.value must be whole rupiah');
    if (a.currency !== undefined && a.currency !== 'IDR')
      throw new FactError('amount.currency', 'amount.currency must be IDR');
    amount = Number(m[1]);
  }
  const paidText = pick(both, PAID_TIME);
  return {
    amount,
    paidAt: paidText === null ? null : parseSnapTimestamp(paidText),
    issuer: pick(both, ISSUER),
    payerName: pick(both, PAYER),
    rrn: pick(both, RRN),
  };
}

/** Records a payment the acquirer reports as settled, for the transaction it issued the code of. */
export async function recordSnapPayment(
  deps: Deps,
  source: SnapSource,
  tx: TransactionsTable,
  facts: SnapPaymentFacts,
  raw: unknown,
): Promise<RecordPaymentResult> {
  const referenceNo = tx.acquirer_reference ?? tx.id;
  const result = await recordPayment(deps, {
    merchantId: tx.merchant_id,
    mode: tx.mode,
    source: source.id,
    sourcePaymentId: referenceNo,
    // The code carries its amount, so a message without one paid exactly that.
    amount: facts.amount ?? tx.total_amount,
    paidAt: facts.paidAt ?? deps.now(),
    trxid: tx.id,
    reference: referenceNo,
    payerName: facts.payerName,
    issuer: facts.issuer,
    raw,
  });
  // Settled either way: the poller has nothing left to ask.
  await deleteSnapPoll(deps.db, tx.id);
  return result;
}
