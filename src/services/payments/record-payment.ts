import type { Transaction } from 'kysely';
import { newPaymentId } from '../../domain/ids.js';
import { decideMatch, type UnmatchedReason } from '../../domain/matching.js';
import { presentPayment } from '../../domain/payment.js';
import type { DB, Mode, PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { enqueueEvent } from '../webhooks/outbox.js';
import { settlePayment } from './settle-payment.js';
import { runInTransaction } from '../../storage/unit-of-work.js';

export interface ReportedPayment {
  merchantId: string;
  mode: Mode;
  /** Which source saw it (simulator, manual, a source id, ...): with sourcePaymentId, the payment's identity. */
  source: string;
  sourcePaymentId: string;
  amount: number;
  paidAt: number;
  /** A transaction the report names directly (simulator, an operator's confirmation). */
  trxid?: string | null;
  /** The source's reference; matched against our trxid and the transaction's acquirer reference. */
  reference?: string | null;
  payerName?: string | null;
  issuer?: string | null;
  raw?: unknown;
}

export type PaymentOutcome = 'matched' | 'unmatched' | 'duplicate';

export interface RecordPaymentResult {
  outcome: PaymentOutcome;
  payment: PaymentsTable;
  /** The paid transaction; for an unmatched payment the one it was compared with, if any. */
  transaction: TransactionsTable | null;
  /** Why an unmatched payment matched nothing (null otherwise). */
  reason: UnmatchedReason | null;
}

/**
 * Stores a reported payment and, in the same database transaction, binds it to the transaction it pays.
 * The unique (source, source_payment_id) key makes a repeated report a no-op; the conditional update
 * on the transaction makes "paid at most once" hold even when two reports race.
 */
export async function recordPayment(deps: Deps, report: ReportedPayment): Promise<RecordPaymentResult> {
  // Group-committed on SQLite: reports arriving together share one fsync (see unit-of-work).
  return runInTransaction(deps, (trx) => recordPaymentIn(trx, deps, report));
}

/** recordPayment inside the caller's database transaction (an operator action adds its audit row). */
export async function recordPaymentIn(trx: Transaction<DB>, deps: Deps, report: ReportedPayment): Promise<RecordPaymentResult> {
  const now = deps.now();
  const payment: PaymentsTable = {
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
    raw: report.raw === undefined ? null : JSON.stringify(report.raw),
  };
  // Stored first: whatever happens next, the report is never lost, and a repeat stops here.
  const stored = await trx
    .insertInto('payments')
    .values(payment)
    .onConflict((oc) => oc.columns(['source', 'source_payment_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!stored) return duplicate(trx, report);

  const named = await namedCandidates(trx, report);
  // Every row namedCandidates returns is one decideMatch picks as named, and a named transaction decides
  // the match without looking at amounts: the amount lookup (which would read the same row again for a
  // report that names its transaction and pays its total) is only needed when nothing is named.
  const byAmount = named.length > 0 ? [] : await amountCandidates(trx, report, now);
  const decision = decideMatch({
    payment: { amount: report.amount, paidAt: report.paidAt, trxid: report.trxid ?? null, reference: report.reference ?? null },
    named,
    byAmount,
    now,
    clockSkewMs: deps.config.matchClockSkewSeconds * 1000,
  });
  if (decision.outcome === 'matched') {
    const settled = await settlePayment(trx, deps, payment, decision.transaction, decision.late, now);
    if (settled) return { outcome: 'matched', ...settled, reason: null };
    // Another payment won the race for this transaction since the candidates were read.
    return unmatched(trx, payment, 'transaction_already_paid', decision.transaction, now);
  }
  return unmatched(trx, payment, decision.reason, decision.transaction, now);
}

/** An unmatched payment stays listed for an operator, and the merchant hears of it. */
async function unmatched(
  trx: Transaction<DB>,
  payment: PaymentsTable,
  reason: UnmatchedReason,
  compared: TransactionsTable | null,
  now: number,
): Promise<RecordPaymentResult> {
  payment.reason = reason;
  await trx.updateTable('payments').set({ reason }).where('id', '=', payment.id).execute();
  await enqueueEvent(trx, {
    merchantId: payment.merchant_id,
    mode: payment.mode,
    type: 'payment.unmatched',
    paymentId: payment.id,
    data: presentPayment(payment),
    now,
  });
  return { outcome: 'unmatched', payment, transaction: compared, reason };
}

/** Exactly the transactions decideMatch's pickNamed would take as named (recordPaymentIn relies on it). */
async function namedCandidates(trx: Transaction<DB>, report: ReportedPayment): Promise<TransactionsTable[]> {
  const trxid = report.trxid || null;
  const reference = report.reference || null;
  if (trxid === null && reference === null) return [];
  return trx
    .selectFrom('transactions')
    .selectAll()
    .where('merchant_id', '=', report.merchantId)
    .where('mode', '=', report.mode)
    .where((eb) => {
      const ors = [];
      if (trxid !== null) ors.push(eb('id', '=', trxid));
      if (reference !== null) ors.push(eb('id', '=', reference), eb('acquirer_reference', '=', reference));
      return eb.or(ors);
    })
    .limit(10)
    .execute();
}

/**
 * The transaction holding the payment's total as its unique total right now: an open one, or one
 * expired within the reservation grace. A reservation past its time is free for a new transaction to
 * take, so it no longer names anyone (whether or not the sweeper has deleted it yet).
 */
async function amountCandidates(trx: Transaction<DB>, report: ReportedPayment, now: number): Promise<TransactionsTable[]> {
  return trx
    .selectFrom('reserved_totals as r')
    .innerJoin('transactions as t', 't.id', 'r.transaction_id')
    .selectAll('t')
    .where('r.merchant_id', '=', report.merchantId)
    .where('r.mode', '=', report.mode)
    .where('r.total_amount', '=', report.amount)
    .where('r.reserved_until', '>', now)
    .execute();
}

async function duplicate(trx: Transaction<DB>, report: ReportedPayment): Promise<RecordPaymentResult> {
  const payment = await trx
    .selectFrom('payments')
    .selectAll()
    .where('source', '=', report.source)
    .where('source_payment_id', '=', report.sourcePaymentId)
    .executeTakeFirstOrThrow();
  const transaction =
    payment.transaction_id === null
      ? null
      : ((await trx.selectFrom('transactions').selectAll().where('id', '=', payment.transaction_id).executeTakeFirst()) ??
        null);
  return { outcome: 'duplicate', payment, transaction, reason: (payment.reason as UnmatchedReason | null) ?? null };
}
