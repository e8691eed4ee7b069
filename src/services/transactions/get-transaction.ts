import type { Kysely } from 'kysely';
import { AppError } from '../../domain/errors.js';
import { batchedLookup } from '../../storage/batched-lookup.js';
import { prepareRowsQuery } from '../../storage/prepared-rows.js';
import type { DB, Mode, PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

export interface TransactionWithPayment {
  transaction: TransactionsTable;
  payment: PaymentsTable | null;
}

// Status reads and QR images read one row by id. Those arriving together share one
// IN-list statement (batched-lookup.ts), compiled once per database and list length (prepared-rows.ts).
const transactionsIn = prepareRowsQuery((db: Kysely<DB>, ids: readonly { id: string }[], _p: Record<string, never>) =>
  db.selectFrom('transactions').selectAll().where('id', 'in', ids.map((r) => r.id)),
);
const paymentsIn = prepareRowsQuery((db: Kysely<DB>, ids: readonly { id: string }[], _p: Record<string, never>) =>
  db.selectFrom('payments').selectAll().where('id', 'in', ids.map((r) => r.id)),
);

/**
 * The list padded to a power of two by repeating its last id (an IN-list reads a row once however often
 * it is named): 7 statement texts per query instead of one per length up to 64, so they stay few among
 * SQLite's cached statements and PostgreSQL's named ones.
 */
function inList(ids: string[]): { id: string }[] {
  const length = 2 ** Math.ceil(Math.log2(ids.length));
  return Array.from({ length }, (_, i) => ({ id: ids[Math.min(i, ids.length - 1)]! }));
}
const byId = <R extends { id: string }>(rows: R[]): Map<string, R> => new Map(rows.map((r) => [r.id, r]));
const transactionById = batchedLookup(async (db: Kysely<DB>, ids: string[]) => byId(await transactionsIn.execute(db, inList(ids), {})));
const paymentById = batchedLookup(async (db: Kysely<DB>, ids: string[]) => byId(await paymentsIn.execute(db, inList(ids), {})));

/**
 * One transaction as its owner sees it. Another merchant's (or the other mode's) id is reported as
 * not found, never as forbidden, so ids cannot be probed across merchants.
 */
export async function getTransaction(
  deps: Deps,
  owner: { merchantId: string; mode: Mode },
  trxid: string,
): Promise<TransactionWithPayment> {
  const transaction = await transactionById.load(deps.db, trxid);
  if (!transaction || transaction.merchant_id !== owner.merchantId || transaction.mode !== owner.mode) {
    throw new AppError('transaction_not_found', `no transaction ${trxid}`, { param: 'trxid' });
  }
  return { transaction, payment: await paymentOf(deps, transaction) };
}

/** For the public QR image and checkout page: the transaction id itself is the capability. */
export async function getTransactionById(deps: Deps, trxid: string): Promise<TransactionsTable> {
  const transaction = await transactionById.load(deps.db, trxid);
  if (!transaction) throw new AppError('transaction_not_found', `no transaction ${trxid}`, { param: 'trxid' });
  return transaction;
}

/**
 * Many transactions by id, for the status watcher: asked for in one turn, they share the IN-list
 * statements of the batched read (one per 64 ids). Ids with no transaction are absent from the map.
 */
export async function transactionsById(deps: Deps, ids: readonly string[]): Promise<Map<string, TransactionsTable>> {
  const rows = await Promise.all(ids.map((id) => transactionById.load(deps.db, id)));
  const found = new Map<string, TransactionsTable>();
  for (const row of rows) if (row) found.set(row.id, row);
  return found;
}

export async function paymentOf(deps: Deps, tx: TransactionsTable): Promise<PaymentsTable | null> {
  if (tx.payment_id === null) return null;
  return (await paymentById.load(deps.db, tx.payment_id)) ?? null;
}
