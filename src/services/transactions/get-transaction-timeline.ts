// One transaction as the console's detail page shows it: its row, its payment, and everything that
// happened to it in time order, from the tables that record it (emails, payments, events, deliveries
// and their attempts, the audit log).
import { effectiveStatus } from '../../domain/transaction.js';
import { auditEntriesOf } from '../../storage/queries/audit.js';
import { deliveriesOfEvents, type DeliveryWithEndpoint } from '../../storage/queries/deliveries.js';
import { attemptsOfJobs } from '../../storage/queries/outbox-jobs.js';
import { emailsOfTransaction } from '../../storage/queries/emails.js';
import { merchantNames } from '../../storage/queries/merchants.js';
import { userById } from '../../storage/queries/users.js';
import { eventsOfTransaction } from '../../storage/queries/outbox.js';
import { doublePaymentsOfTransaction, paymentsOfTransaction } from '../../storage/queries/payments.js';
import type {
  AuditLogTable,
  DeliveryAttemptsTable,
  EmailsTable,
  EventType,
  PaymentsTable,
  TransactionStatus,
  TransactionsTable,
} from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import type { Viewer } from '../../domain/viewer.js';
import { getVisibleTransaction } from './get-visible-transaction.js';

export interface DeliveryHistory extends DeliveryWithEndpoint {
  /** Every attempt, oldest first (a resend keeps the earlier ones). */
  attemptList: DeliveryAttemptsTable[];
}

export type TimelineEntry =
  | { at: number; kind: 'created' }
  | { at: number; kind: 'audit'; entry: AuditLogTable }
  | { at: number; kind: 'payment'; payment: PaymentsTable }
  | { at: number; kind: 'paid'; late: boolean }
  | { at: number; kind: 'cancelled' }
  | { at: number; kind: 'expired' }
  /** An e-mail as it was queued, with what became of it (status, skip reason or error). */
  | { at: number; kind: 'email'; email: EmailsTable }
  | { at: number; kind: 'emailSent'; email: EmailsTable }
  | { at: number; kind: 'event'; event: { id: string; type: EventType }; deliveries: DeliveryHistory[] };

export interface TransactionDetail {
  transaction: TransactionsTable;
  /** The status a reader sees now (a pending row past its expiry is expired). */
  status: TransactionStatus;
  payment: PaymentsTable | null;
  merchantName: string | null;
  /** The cashier who made it at the point of sale (its address), null for any other create. */
  cashierEmail: string | null;
  timeline: TimelineEntry[];
}

// Entries of the same millisecond in the order they happen: an operator's action, then the payment it
// records, the status it sets, the e-mail that change queues, and the event announcing it.
const RANK: Record<TimelineEntry['kind'], number> = {
  created: 0,
  audit: 1,
  payment: 2,
  paid: 3,
  cancelled: 3,
  expired: 3,
  email: 4,
  emailSent: 5,
  event: 6,
};

export async function getTransactionTimeline(deps: Deps, viewer: Viewer, trxid: string): Promise<TransactionDetail> {
  const tx = await getVisibleTransaction(deps, viewer, trxid);
  const [bound, doubles, emails, events, merchant] = await Promise.all([
    paymentsOfTransaction(deps.db, tx.id),
    // A paid transaction's timeline also shows the payments refused because it was paid already.
    tx.status === 'paid' ? doublePaymentsOfTransaction(deps.db, tx) : Promise.resolve([]),
    emailsOfTransaction(deps.db, tx.id),
    eventsOfTransaction(deps.db, tx.id),
    merchantNames(deps.db, [tx.merchant_id]),
  ]);
  const payments = [...bound, ...doubles];
  const eventIds = events.map((e) => e.id);
  const [deliveries, audit] = await Promise.all([
    deliveriesOfEvents(deps.db, eventIds),
    auditEntriesOf(deps.db, [
      { type: 'transaction', ids: [tx.id] },
      { type: 'event', ids: eventIds },
    ]),
  ]);
  const attempts = await attemptsOfJobs(
    deps.db,
    'deliveries',
    deliveries.map((d) => d.id),
  );

  const now = deps.now();
  const status = effectiveStatus(tx, now);
  const entries: TimelineEntry[] = [{ at: tx.created_at, kind: 'created' }];
  for (const entry of audit) entries.push({ at: entry.created_at, kind: 'audit', entry });
  for (const payment of payments) entries.push({ at: payment.received_at, kind: 'payment', payment });
  if (tx.paid_at !== null) entries.push({ at: tx.paid_at, kind: 'paid', late: tx.paid_late === 1 });
  if (tx.cancelled_at !== null) entries.push({ at: tx.cancelled_at, kind: 'cancelled' });
  // Expiry is a moment of the row itself, whether or not the sweeper has written it yet.
  if (status === 'expired') entries.push({ at: tx.expires_at, kind: 'expired' });
  for (const email of emails) {
    entries.push({ at: email.created_at, kind: 'email', email });
    if (email.sent_at !== null) entries.push({ at: email.sent_at, kind: 'emailSent', email });
  }
  for (const event of events) {
    const mine = deliveries
      .filter((d) => d.event_id === event.id)
      .map((d) => ({ ...d, attemptList: attempts.filter((a) => a.delivery_id === d.id) }));
    entries.push({ at: event.created_at, kind: 'event', event: { id: event.id, type: event.type }, deliveries: mine });
  }
  entries.sort((a, b) => a.at - b.at || RANK[a.kind] - RANK[b.kind]);

  return {
    transaction: tx,
    status,
    payment: payments.find((p) => p.id === tx.payment_id) ?? null,
    merchantName: merchant[0]?.name ?? null,
    cashierEmail: tx.created_by_user_id ? ((await userById(deps.db, tx.created_by_user_id))?.email ?? null) : null,
    timeline: entries,
  };
}
