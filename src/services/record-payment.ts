import type { Transaction } from 'kysely';
import { newPaymentId } from '../domain/ids.js';
import type { DB, Mode, PaymentsTable, TransactionsTable } from '../storage/schema.js';
import type { Deps } from './deps.js';
import { enqueueEmail, enqueueEvent } from './outbox.js';
import { presentTransaction } from '../domain/transaction.js';
import { presentPayment } from '../domain/payment.js';

export interface ReportedPayment {
  merchantId: string;
  mode: Mode;
  /** Which source saw it (simulator, a source id, ...): with sourcePaymentId, the payment's identity. */
  source: string;
  sourcePaymentId: string;
  amount: number;
  paidAt: number;
  /** A transaction the report names directly (simulator, acquirer reference already resolved). */
  trxid?: string | null;
  reference?: string | null;
  payerName?: string | null;
  issuer?: string | null;
  raw?: unknown;
}

export type PaymentOutcome = 'matched' | 'unmatched' | 'duplicate';

export interface RecordPaymentResult {
  outcome: PaymentOutcome;
  payment: PaymentsTable;
  transaction: TransactionsTable | null;
}

/**
 * Stores a reported payment and, in the same database transaction, binds it to the transaction it pays.
 * The unique (source, source_payment_id) key makes a repeated report a no-op; the conditional update
 * on the transaction makes "paid at most once" hold even when two reports race.
 */
export async function recordPayment(deps: Deps, report: ReportedPayment): Promise<RecordPaymentResult> {
  return deps.db.transaction().execute(async (trx) => {
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
    const stored = await trx
      .insertInto('payments')
      .values(payment)
      .onConflict((oc) => oc.columns(['source', 'source_payment_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!stored) return duplicate(trx, report);

    const candidate = await findCandidate(trx, report);
    const reason = mismatch(candidate, report);
    if (candidate === null || reason !== null) {
      payment.reason = reason ?? 'no_matching_transaction';
      await markUnmatched(trx, deps, payment, now);
      return { outcome: 'unmatched', payment, transaction: candidate };
    }

    const late = candidate.status !== 'pending' || report.paidAt > candidate.expires_at || now > candidate.expires_at;
    const paid = await trx
      .updateTable('transactions')
      .set({ status: 'paid', paid_at: report.paidAt, paid_late: late ? 1 : 0, payment_id: payment.id, updated_at: now })
      .where('id', '=', candidate.id)
      .where('status', '!=', 'paid')
      .executeTakeFirst();
    if (Number(paid.numUpdatedRows) !== 1) {
      payment.reason = 'transaction_already_paid';
      await markUnmatched(trx, deps, payment, now);
      return { outcome: 'unmatched', payment, transaction: candidate };
    }
    payment.status = 'matched';
    payment.transaction_id = candidate.id;
    await trx
      .updateTable('payments')
      .set({ status: 'matched', transaction_id: candidate.id })
      .where('id', '=', payment.id)
      .execute();
    const transaction: TransactionsTable = {
      ...candidate,
      status: 'paid',
      paid_at: report.paidAt,
      paid_late: late ? 1 : 0,
      payment_id: payment.id,
      updated_at: now,
    };
    await enqueueEvent(trx, {
      merchantId: transaction.merchant_id,
      mode: transaction.mode,
      type: 'transaction.paid',
      transactionId: transaction.id,
      paymentId: payment.id,
      data: presentTransaction(transaction, payment, now, deps.config.publicBaseUrl),
      now,
    });
    if (transaction.email !== null) {
      await enqueueEmail(trx, { merchantId: transaction.merchant_id, transactionId: transaction.id, kind: 'receipt', recipient: transaction.email, now });
    }
    return { outcome: 'matched', payment, transaction };
  });
}

/** An unmatched payment stays listed for an operator, and the merchant hears of it. */
async function markUnmatched(trx: Transaction<DB>, deps: Deps, payment: PaymentsTable, now: number): Promise<void> {
  await trx.updateTable('payments').set({ reason: payment.reason }).where('id', '=', payment.id).execute();
  await enqueueEvent(trx, {
    merchantId: payment.merchant_id,
    mode: payment.mode,
    type: 'payment.unmatched',
    paymentId: payment.id,
    data: presentPayment(payment),
    now,
  });
}

function mismatch(tx: TransactionsTable | null, report: ReportedPayment): string | null {
  if (tx === null) return null;
  if (tx.total_amount !== report.amount) return 'amount_mismatch';
  if (tx.status === 'paid') return 'transaction_already_paid';
  return null;
}

async function findCandidate(trx: Transaction<DB>, report: ReportedPayment): Promise<TransactionsTable | null> {
  const base = trx
    .selectFrom('transactions')
    .selectAll()
    .where('merchant_id', '=', report.merchantId)
    .where('mode', '=', report.mode);
  if (report.trxid) return (await base.where('id', '=', report.trxid).executeTakeFirst()) ?? null;
  // Otherwise by the unique total: the reservation names the one transaction holding it at that time.
  const held = await trx
    .selectFrom('reserved_totals')
    .select('transaction_id')
    .where('merchant_id', '=', report.merchantId)
    .where('mode', '=', report.mode)
    .where('total_amount', '=', report.amount)
    .where('reserved_until', '>=', report.paidAt)
    .executeTakeFirst();
  if (!held) return null;
  return (await base.where('id', '=', held.transaction_id).executeTakeFirst()) ?? null;
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
  return { outcome: 'duplicate', payment, transaction };
}
