import { isSourceId, newPaymentId } from '../../domain/ids.js';
import { decideMatch, type UnmatchedReason } from '../../domain/matching.js';
import { isCorroboration, presentPayment, REPORTED_BY_ANOTHER_SOURCE } from '../../domain/payment.js';
import type { Tx } from '../../storage/executor.js';
import {
  bindCorroboration,
  lockTransactionForReports,
  paymentBySourceId,
  paymentCandidatesByAmounts,
  paymentCandidatesByName,
  reportsOfPaidTransaction,
  setPaymentReason,
  storedPaymentKeys,
} from '../../storage/queries/payments.js';
import type { Mode, PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import type { RecordPaymentResult, ReportedPayment } from './payment-report.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { settlePayment } from './settle-payment.js';
import { readTransaction } from '../../storage/queries/transactions.js';
import { merchantReportFacts } from '../../storage/queries/merchants.js';
import { paymentKey, ReportBatch, ReportsRaced } from './report-batch.js';
import type { ReportQueue, WaitingReport } from './report-queue.js';

export type { PaymentOutcome, RecordPaymentResult, ReportedPayment } from './payment-report.js';

/**
 * Stores a reported payment and, in the same database transaction, binds it to the transaction it pays.
 * The unique (source, source_payment_id) key makes a repeated report a no-op; the conditional update
 * on the transaction makes "paid at most once" hold even when two reports race.
 *
 * Reports are recorded together in one unit of work (recordPaymentsIn), a few batches at a time per
 * process: those that arrive while they are being recorded (a payment storm) wait and form the next, as
 * SQLite's group commit does with its commits. Each is answered only after the commit that holds it,
 * exactly as it would have been recorded alone in its place in the queue. The reports handed over in one
 * go (a bank-mutation post's array, a feed's page) are never split between batches, so they are recorded
 * in their order.
 */
export function recordPayment(deps: Deps, report: ReportedPayment): Promise<RecordPaymentResult> {
  const queue = deps.state.payments;
  if (!queue.handingOver) {
    // Everything queued before the microtasks run is one hand-over (one caller's loop, say).
    queue.handingOver = true;
    queue.handOvers += 1;
    queueMicrotask(() => {
      queue.handingOver = false;
    });
  }
  return new Promise<RecordPaymentResult>((resolve, reject) => {
    queue.waiting.push({ report, resolve, reject, handOver: queue.handOvers });
    schedule(deps, queue);
  });
}

/** Bounds one unit of work's statements (a payment row has 16 parameters) and its commit's latency. */
const MAX_REPORT_BATCH = 128;
/**
 * Batches recorded at once. On PostgreSQL two, so that one batch's commit overlaps the next one's
 * statements: measured against one at a time (the bench's storm, three rounds each), two answered 13% more
 * reports a second for about 8% more of the gateway's CPU per report (one at a time makes batches of about
 * 24 reports instead of 14, but leaves the database idle while the gateway reads the next batch's requests).
 * On SQLite one, since group commit already queues the next batch behind the running commit and its log
 * flush, and a batch that waits for them grows (fewer, larger batches cost less per report).
 */
const batchesAtOnce = (deps: Deps): number => (deps.db.dialect === 'postgres' ? 2 : 1);

function schedule(deps: Deps, queue: ReportQueue): void {
  if (queue.scheduled || queue.recording >= batchesAtOnce(deps) || queue.waiting.length === 0) return;
  queue.scheduled = true;
  // setImmediate runs after this turn's I/O callbacks, so every report parsed in it joins.
  setImmediate(() => {
    queue.scheduled = false;
    queue.recording += 1;
    void recordBatch(deps, queue, nextBatch(queue)).finally(() => {
      queue.recording -= 1;
      schedule(deps, queue);
    });
    schedule(deps, queue);
  });
}

/** Up to MAX_REPORT_BATCH reports from the front of the queue, and the rest of the last one's hand-over. */
function nextBatch(queue: ReportQueue): WaitingReport[] {
  let end = Math.min(queue.waiting.length, MAX_REPORT_BATCH);
  const last = queue.waiting[end - 1]?.handOver;
  while (end < queue.waiting.length && queue.waiting[end]!.handOver === last) end += 1;
  return queue.waiting.splice(0, end);
}

async function recordBatch(deps: Deps, queue: ReportQueue, batch: WaitingReport[]): Promise<void> {
  if (batch.length === 1) {
    queue.stats.alone += 1;
    // Group-committed on SQLite all the same: reports arriving together share one fsync (unit-of-work.ts).
    await recordAlone(deps, batch[0]!);
    return;
  }
  let results: RecordPaymentResult[];
  try {
    results = await deps.db.runInTransaction((trx) =>
      recordPaymentsIn(
        trx,
        deps,
        batch.map((w) => w.report),
      ),
    );
  } catch {
    // Nothing of the batch was committed (a database error, a deadlock with another instance's batch, a
    // payment stored meanwhile): each report is recorded on its own, in the order they arrived, so one
    // cannot fail its neighbours.
    queue.stats.failed += 1;
    for (const w of batch) await recordAlone(deps, w);
    return;
  }
  queue.stats.batches += 1;
  queue.stats.reports += batch.length;
  for (const [i, result] of results.entries()) batch[i]!.resolve(result);
}

/** One report in a unit of work of its own; once more when its payment was stored meanwhile (ReportsRaced). */
async function recordAlone(deps: Deps, waiting: WaitingReport): Promise<void> {
  const once = () => deps.db.runInTransaction((trx) => recordPaymentIn(trx, deps, waiting.report));
  await once()
    .catch((err: unknown) => (err instanceof ReportsRaced ? once() : Promise.reject(err)))
    .then(waiting.resolve, waiting.reject);
}

/**
 * Several reports inside the caller's unit of work, in their order, with what recording them one after
 * another in their own units would give (a report of a payment stored before, or stored by an earlier
 * report of the list, is a duplicate). Shared: one read of which payments are stored, one read of the
 * candidates of their amounts per merchant and mode, one insert of the payments as the matcher decided
 * them, and their events, deliveries and alerts written together at the end (report-batch.ts).
 */
export async function recordPaymentsIn(
  trx: Tx,
  deps: Deps,
  reports: readonly ReportedPayment[],
): Promise<RecordPaymentResult[]> {
  if (reports.length === 0) return [];
  const now = deps.now();
  const rows = reports.map((report) => paymentRow(report, now));
  const keys = new Map(
    rows.map((row) => [paymentKey(row), { source: row.source, sourcePaymentId: row.source_payment_id }]),
  );
  const batch = new ReportBatch(now, await storedPaymentKeys(trx, [...keys.values()]), reports.length > 1);
  // The candidates of every report's amount, per merchant and mode (a report that names its transaction
  // needs them only when the name finds nothing).
  const amounts = new Map<string, { merchantId: string; mode: Mode; amounts: number[] }>();
  for (const report of reports) {
    const key = `${report.merchantId}\u0000${report.mode}`;
    const group = amounts.get(key) ?? { merchantId: report.merchantId, mode: report.mode, amounts: [] };
    group.amounts.push(report.amount);
    amounts.set(key, group);
  }
  for (const group of amounts.values()) {
    const found = await paymentCandidatesByAmounts(trx, { ...group, now });
    for (const [amount, candidates] of found) batch.setCandidates(group.merchantId, group.mode, amount, candidates);
  }
  const results: RecordPaymentResult[] = [];
  for (const [i, report] of reports.entries()) results.push(await recordOne(trx, deps, report, rows[i]!, batch));
  await batch.flush(trx);
  await batch.writes.write(trx, (db, trxids) => deps.state.statusBus.announceAll(db, trxids));
  return results;
}

/** recordPayment inside the caller's database transaction (an operator action adds its audit row). */
export async function recordPaymentIn(trx: Tx, deps: Deps, report: ReportedPayment): Promise<RecordPaymentResult> {
  return (await recordPaymentsIn(trx, deps, [report]))[0]!;
}

/** The row a report is stored as: unmatched until the matcher binds it. */
function paymentRow(report: ReportedPayment, now: number): PaymentsTable {
  return {
    id: newPaymentId(),
    merchant_id: report.merchantId,
    mode: report.mode,
    source: report.source,
    source_payment_id: report.sourcePaymentId,
    amount: report.amount,
    paid_at: report.paidAt,
    received_at: now,
    reference: report.reference ?? null,
    payer_name: report.payerName ?? null,
    issuer: report.issuer ?? null,
    status: 'unmatched',
    reason: null,
    transaction_id: null,
    compared_transaction_id: null,
    raw: report.raw === undefined ? null : JSON.stringify(report.raw),
  };
}

/**
 * One report of a batch: a repeat is answered as a duplicate; a new payment is matched and settled, its
 * row kept by the batch as decided, and inserted with the others (it is stored in the same unit of work as
 * everything done because of it, so it is never lost, and never acted on without being stored).
 */
async function recordOne(
  trx: Tx,
  deps: Deps,
  report: ReportedPayment,
  payment: PaymentsTable,
  batch: ReportBatch,
): Promise<RecordPaymentResult> {
  if (!batch.take(payment)) {
    // The stored row may be one of this batch's, still kept in memory.
    await batch.flush(trx);
    return duplicate(trx, report);
  }
  const now = batch.now;
  const writes = batch.writes;
  // A disabled merchant's sources may still report (a feed already polling, a request in flight, an
  // operator's confirmation): stored as above, but it pays nothing.
  // Read with the endpoints and channels its events will go to: one statement for the three.
  const disabledAt = await batch.disabledAt(report.merchantId, async () => {
    const facts = await merchantReportFacts(trx, report.merchantId);
    writes.know(report.merchantId, facts.endpoints, facts.channels);
    return facts.disabledAt;
  });
  if (disabledAt != null) return unmatched(trx, deps, payment, 'merchant_disabled', null, batch);

  // A report that names its transaction reads it from the table: the batch's changes are written first.
  if (report.trxid || report.reference) await batch.flush(trx);
  const named = await namedCandidates(trx, report);
  // Every row namedCandidates returns is one decideMatch picks as named, and a named transaction decides
  // the match without looking at amounts: the amount lookup (which would read the same row again for a
  // report that names its transaction and pays its total) is only needed when nothing is named.
  const byAmount = named.length > 0 ? [] : batch.candidatesOf(report.merchantId, report.mode, report.amount);
  const decision = decideMatch({
    payment: {
      amount: report.amount,
      paidAt: report.paidAt,
      trxid: report.trxid ?? null,
      reference: report.reference ?? null,
      confirmsRest: report.confirmsRest === true,
    },
    named,
    byAmount,
    now,
    clockSkewMs: deps.config.matchClockSkewSeconds * 1000,
  });
  if (decision.outcome === 'matched') {
    const settled = await settlePayment(trx, deps, payment, decision.transaction, decision.late, now, {
      writes,
      pending: batch.isPending(payment.id),
      ...(batch.payLater ? { payLater: (candidate, paid) => batch.markPaid(candidate, paid) } : {}),
    });
    if (settled) {
      batch.saw(settled.transaction);
      // The row the batch inserts is the payment as settled.
      Object.assign(payment, settled.payment);
      return { outcome: 'matched', ...settled, reason: null };
    }
    // Another payment won the race for this transaction since the candidates were read: it is paid now
    // (this one is a double payment), or a person kept it open after a part payment (it is owed less).
    const current = (await readTransaction(trx, decision.transaction.id)) ?? decision.transaction;
    batch.saw(current);
    if (current.status === 'paid')
      return (
        (await corroborated(trx, deps, payment, current, batch)) ??
        unmatched(trx, deps, payment, 'transaction_already_paid', current, batch)
      );
    return unmatched(trx, deps, payment, 'amount_mismatch', current, batch);
  }
  if (decision.reason === 'transaction_already_paid' && decision.transaction !== null) {
    const corroboration = await corroborated(trx, deps, payment, decision.transaction, batch);
    if (corroboration) return corroboration;
  }
  return unmatched(trx, deps, payment, decision.reason, decision.transaction, batch);
}

/**
 * A report of a paid transaction's amount from a source other than the one(s) that reported it: the same
 * payment seen twice (a phone's notification and the bank's mutation), not a double payment to refund,
 * when isCorroboration says so over the transaction's reports from payment sources (not the simulator or
 * `manual`) dated within CROSS_SOURCE_WINDOW_SECONDS of this one. It is bound to the transaction with reason `reported_by_another_source` (matched, so neither
 * listed for review nor refunded; the transaction's amount paid does not change) and answered as a
 * duplicate, without a `payment.unmatched` event. The transaction's row is locked first on PostgreSQL, so
 * two reports at once are counted one after the other; null when it is a payment of its own.
 */
async function corroborated(
  trx: Tx,
  deps: Deps,
  payment: PaymentsTable,
  tx: TransactionsTable,
  batch: ReportBatch,
): Promise<RecordPaymentResult | null> {
  const windowMs = deps.config.crossSourceWindowSeconds * 1000;
  // Only the merchant's payment sources observe payments: the sandbox's simulator and an operator's
  // confirmation (`manual`) are statements of a payment, never a second view of one.
  if (windowMs === 0 || !isSourceId(payment.source)) return null;
  // The reports it is counted with are read from the table: the batch's own are inserted first.
  await batch.flush(trx);
  await lockTransactionForReports(trx, deps.db.dialect, tx.id);
  const others = await reportsOfPaidTransaction(trx, tx, {
    amount: payment.amount,
    from: payment.paid_at - windowMs,
    to: payment.paid_at + windowMs,
    exceptId: payment.id,
  });
  if (
    !isCorroboration(
      payment.source,
      others.filter((other) => isSourceId(other.source)),
    )
  )
    return null;
  await bindCorroboration(trx, payment.id, tx.id, REPORTED_BY_ANOTHER_SOURCE);
  const bound: PaymentsTable = {
    ...payment,
    status: 'matched',
    reason: REPORTED_BY_ANOTHER_SOURCE,
    transaction_id: tx.id,
    compared_transaction_id: null,
  };
  return { outcome: 'duplicate', payment: bound, transaction: tx, reason: REPORTED_BY_ANOTHER_SOURCE };
}

/** An unmatched payment stays listed for an operator, and the merchant hears of it. */
async function unmatched(
  trx: Tx,
  deps: Deps,
  payment: PaymentsTable,
  reason: UnmatchedReason,
  compared: TransactionsTable | null,
  batch: ReportBatch,
): Promise<RecordPaymentResult> {
  payment.reason = reason;
  // Which transaction it was refused for, so an operator can open it beside the reason.
  payment.compared_transaction_id = compared?.id ?? null;
  // A row the batch still keeps is inserted as it is now; one inserted already (corroborated) is updated.
  if (!batch.isPending(payment.id)) await setPaymentReason(trx, payment.id, reason, payment.compared_transaction_id);
  await enqueueEvent(
    trx,
    deps.state.statusBus,
    {
      merchantId: payment.merchant_id,
      mode: payment.mode,
      type: 'payment.unmatched',
      paymentId: payment.id,
      data: presentPayment(payment),
      now: batch.now,
    },
    batch.writes,
  );
  return { outcome: 'unmatched', payment, transaction: compared, reason };
}

/** Exactly the transactions decideMatch's pickNamed would take as named (recordPaymentIn relies on it). */
async function namedCandidates(trx: Tx, report: ReportedPayment): Promise<TransactionsTable[]> {
  const trxid = report.trxid || null;
  const reference = report.reference || null;
  if (trxid === null && reference === null) return [];
  return paymentCandidatesByName(trx, { merchantId: report.merchantId, mode: report.mode, trxid, reference });
}

async function duplicate(trx: Tx, report: ReportedPayment): Promise<RecordPaymentResult> {
  const payment = await paymentBySourceId(trx, report.source, report.sourcePaymentId);
  const transaction =
    payment.transaction_id === null ? null : ((await readTransaction(trx, payment.transaction_id)) ?? null);
  return {
    outcome: 'duplicate',
    payment,
    transaction,
    reason: (payment.reason as RecordPaymentResult['reason']) ?? null,
  };
}
