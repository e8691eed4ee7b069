import type { Kysely } from 'kysely';
import { AppError } from '../domain/errors.js';
import { prepareQuery } from '../storage/prepared.js';
import type { DB, Mode, PaymentsTable, TransactionsTable } from '../storage/schema.js';
import type { Deps } from './deps.js';

export interface TransactionWithPayment {
  transaction: TransactionsTable;
  payment: PaymentsTable | null;
}

// These run on every status read, QR image and checkout page: compiled once per database.
const ownedTransaction = prepareQuery((db: Kysely<DB>, p: { id: string; merchantId: string; mode: Mode }) =>
  db.selectFrom('transactions').selectAll().where('id', '=', p.id).where('merchant_id', '=', p.merchantId).where('mode', '=', p.mode),
);
const transactionById = prepareQuery((db: Kysely<DB>, p: { id: string }) =>
  db.selectFrom('transactions').selectAll().where('id', '=', p.id),
);
const paymentById = prepareQuery((db: Kysely<DB>, p: { id: string }) => db.selectFrom('payments').selectAll().where('id', '=', p.id));

/**
 * One transaction as its owner sees it. Another merchant's (or the other mode's) id is reported as
 * not found, never as forbidden, so ids cannot be probed across merchants.
 */
export async function getTransaction(
  deps: Deps,
  owner: { merchantId: string; mode: Mode },
  trxid: string,
): Promise<TransactionWithPayment> {
  const transaction = await ownedTransaction.executeTakeFirst(deps.db, { id: trxid, merchantId: owner.merchantId, mode: owner.mode });
  if (!transaction) throw new AppError('transaction_not_found', `no transaction ${trxid}`, { param: 'trxid' });
  return { transaction, payment: await paymentOf(deps, transaction) };
}

/** For the public QR image and checkout page: the transaction id itself is the capability. */
export async function getTransactionById(deps: Deps, trxid: string): Promise<TransactionsTable> {
  const transaction = await transactionById.executeTakeFirst(deps.db, { id: trxid });
  if (!transaction) throw new AppError('transaction_not_found', `no transaction ${trxid}`, { param: 'trxid' });
  return transaction;
}

export async function paymentOf(deps: Deps, tx: TransactionsTable): Promise<PaymentsTable | null> {
  if (tx.payment_id === null) return null;
  return (await paymentById.executeTakeFirst(deps.db, { id: tx.payment_id })) ?? null;
}
