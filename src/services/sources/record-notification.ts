import { newNotificationId } from '../../domain/ids.js';
import type { Mode, SourceNotificationsTable } from '../../storage/schema.js';
import {
  deleteSourceNotificationsBeyond,
  insertSourceNotifications,
} from '../../storage/queries/source-notifications.js';
import type { Deps } from '../deps.js';
import { recordPaymentsIn } from '../payments/record-payment.js';
import { ReportsRaced } from '../payments/report-batch.js';

/** How many notifications a source keeps: older ones are deleted in the unit of work that adds one. */
export const NOTIFICATIONS_KEPT = 200;

/** A notification a source received, read: the payments it reports, or why it reports none. */
export interface ReceivedNotification {
  source: { id: string; merchantId: string; mode: Mode };
  app: string | null;
  title: string;
  text: string;
  reading: { payments: ReadonlyArray<{ sourcePaymentId: string; amount: number }> } | { ignored: string };
  /** What the sender posted, kept with each payment for operators (never a secret). */
  raw: unknown;
}

export interface NotificationResult {
  outcome: SourceNotificationsTable['outcome'];
  /** An unmatched payment's reason, or why the notification was ignored; null otherwise. */
  reason: string | null;
  payment_id: string | null;
  trxid: string | null;
  amount: number | null;
}

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * Records what a notification reports, in one unit of work: each payment through recordPayment's rules
 * (stored first, deduplicated on the source's payment id, matched, settled), the notification itself with
 * what it became (ignored ones too), and the source's older notifications beyond NOTIFICATIONS_KEPT deleted.
 */
export async function recordNotification(deps: Deps, input: ReceivedNotification): Promise<NotificationResult[]> {
  // The same notification posted twice at once (a forwarder retrying in parallel) on PostgreSQL: the unit
  // that stores its payment second is rolled back and run again, and then finds it stored (a duplicate).
  return recordOnce(deps, input).catch((err: unknown) =>
    err instanceof ReportsRaced ? recordOnce(deps, input) : Promise.reject(err),
  );
}

function recordOnce(deps: Deps, input: ReceivedNotification): Promise<NotificationResult[]> {
  return deps.db.runInTransaction(async (trx) => {
    const now = deps.now();
    const results: NotificationResult[] = [];
    if ('ignored' in input.reading) {
      results.push({ outcome: 'ignored', reason: input.reading.ignored, payment_id: null, trxid: null, amount: null });
    } else {
      // The payments of one notification (a grouped one reports several) share their statements.
      const recorded = await recordPaymentsIn(
        trx,
        deps,
        input.reading.payments.map((payment) => ({
          merchantId: input.source.merchantId,
          mode: input.source.mode,
          source: input.source.id,
          sourcePaymentId: payment.sourcePaymentId,
          amount: payment.amount,
          // When the gateway heard of it: a phone's clock is not one to match by.
          paidAt: now,
          raw: input.raw,
        })),
      );
      for (const r of recorded) {
        results.push({
          outcome: r.outcome,
          reason: r.reason,
          payment_id: r.payment.id,
          trxid: r.payment.transaction_id,
          amount: r.payment.amount,
        });
      }
    }
    await insertSourceNotifications(
      trx,
      results.map((r) => ({
        id: newNotificationId(),
        source_id: input.source.id,
        received_at: now,
        app: input.app === null ? null : clip(input.app, 200),
        title: clip(input.title, 500),
        text: clip(input.text, 2000),
        outcome: r.outcome,
        reason: r.reason,
        payment_id: r.payment_id,
      })),
    );
    await deleteSourceNotificationsBeyond(trx, input.source.id, NOTIFICATIONS_KEPT);
    return results;
  });
}
