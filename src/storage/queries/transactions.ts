import { sql, type Kysely } from 'kysely';
import type { TransactionSearch } from '../../domain/transaction-filters.js';
import { batchedLookup } from '../engine/batched-lookup.js';
import type { Db, Executor, Tx } from '../executor.js';
import { padToPowerOfTwo, prepareRowsQuery } from '../engine/prepared-rows.js';
import type { DB, Mode, PaymentsTable, TransactionStatus, TransactionsTable } from '../schema.js';

// Status reads and QR images read one row by id. Those arriving together share one
// IN-list statement (batched-lookup.ts), compiled once per database and list length (prepared-rows.ts).
const transactionsIn = prepareRowsQuery((db: Kysely<DB>, ids: readonly { id: string }[], _p: Record<string, never>) =>
  db
    .selectFrom('transactions')
    .selectAll()
    .where(
      'id',
      'in',
      ids.map((r) => r.id),
    ),
);
const paymentsIn = prepareRowsQuery((db: Kysely<DB>, ids: readonly { id: string }[], _p: Record<string, never>) =>
  db
    .selectFrom('payments')
    .selectAll()
    .where(
      'id',
      'in',
      ids.map((r) => r.id),
    ),
);

/** The ids as an IN-list's rows, padded to a power of two (padToPowerOfTwo). */
const inList = (ids: string[]): { id: string }[] => padToPowerOfTwo(ids).map((id) => ({ id }));
const byId = <R extends { id: string }>(rows: R[]): Map<string, R> => new Map(rows.map((r) => [r.id, r]));
const transactionById = batchedLookup(async (db: Kysely<DB>, ids: string[]) =>
  byId(await transactionsIn.execute(db, inList(ids), {})),
);
const paymentById = batchedLookup(async (db: Kysely<DB>, ids: string[]) =>
  byId(await paymentsIn.execute(db, inList(ids), {})),
);

/**
 * One transaction by id, through the batched read (reads of one turn share a statement). Inside a unit of
 * work it is read at once, in that transaction.
 */
export function loadTransactionById(db: Executor, id: string): Promise<TransactionsTable | undefined> {
  return transactionById.load(db, id);
}

/**
 * Many transactions by id: asked for in one turn, they share the IN-list statements of the batched read
 * (one per 64 ids). Ids with no transaction are absent from the map.
 */
export async function loadTransactionsById(db: Db, ids: readonly string[]): Promise<Map<string, TransactionsTable>> {
  const rows = await Promise.all(ids.map((id) => transactionById.load(db, id)));
  const found = new Map<string, TransactionsTable>();
  for (const row of rows) if (row) found.set(row.id, row);
  return found;
}

/** One payment by id, through the batched read. */
export function loadPaymentById(db: Db, id: string): Promise<PaymentsTable | undefined> {
  return paymentById.load(db, id);
}

/** One transaction by id, read on its own (not batched). */
export function readTransaction(db: Executor, id: string): Promise<TransactionsTable | undefined> {
  return db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** One transaction by id that must exist (Kysely's NoResultError otherwise). */
export function readExistingTransaction(db: Executor, id: string): Promise<TransactionsTable> {
  return db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** A merchant's transaction of one mode by its ref. */
export function readTransactionByRef(
  db: Executor,
  merchantId: string,
  mode: Mode,
  ref: string,
): Promise<TransactionsTable | undefined> {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('ref', '=', ref)
    .executeTakeFirst();
}

/** Inserts the row unless its id or ref is taken; false when another row holds a unique key. */
export async function insertTransactionIfAbsent(trx: Tx, row: TransactionsTable): Promise<boolean> {
  const inserted = await trx
    .insertInto('transactions')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

// A batch's transaction rows in one insert, compiled once per batch size (prepared-rows.ts).
const transactionsInsert = prepareRowsQuery(
  (db: Kysely<DB>, rows: readonly TransactionsTable[], _p: Record<string, never>) =>
    db.insertInto('transactions').values([...rows]),
);

/** Inserts these transaction rows in one statement (a batch of creates). */
export async function insertTransactions(trx: Tx, rows: readonly TransactionsTable[]): Promise<void> {
  await transactionsInsert.execute(trx, rows, {});
}

/**
 * Marks the transaction cancelled if it is still pending and unexpired at `now` (a payment or the expiry
 * sweeper may have changed it since it was read); the cancelled row, or undefined.
 */
export function cancelPendingTransaction(trx: Tx, id: string, now: number): Promise<TransactionsTable | undefined> {
  return trx
    .updateTable('transactions')
    .set({ status: 'cancelled', cancelled_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** Up to `limit` pending transactions whose expiry is at or before `now`, the earliest first. */
export function readDuePending(trx: Tx, now: number, limit: number): Promise<TransactionsTable[]> {
  return trx
    .selectFrom('transactions')
    .selectAll()
    .where('status', '=', 'pending')
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

/** Marks a pending transaction expired; false when it was no longer pending. */
export async function markPendingExpired(trx: Tx, id: string, now: number): Promise<boolean> {
  const result = await trx
    .updateTable('transactions')
    .set({ status: 'expired', updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface TransactionPageQuery {
  /** Null: every merchant, or both modes. */
  merchantId: string | null;
  mode: Mode | null;
  /** The status a reader sees: a pending row past its expiry (at `now`) counts as expired. */
  status: TransactionStatus | null;
  now: number;
  /** Only rows before this (created_at, id), in the listing's order. */
  before: { createdAt: number; id: string } | null;
  /** How many rows to read at most. */
  limit: number;
}

/** Transactions newest first (created_at, then id, descending), filtered as asked. */
export function readTransactionPage(db: Db, q: TransactionPageQuery): Promise<TransactionsTable[]> {
  const { now } = q;
  let query = db.selectFrom('transactions').selectAll();
  if (q.merchantId !== null) query = query.where('merchant_id', '=', q.merchantId);
  if (q.mode !== null) query = query.where('mode', '=', q.mode);
  if (q.status === 'pending') {
    query = query.where('status', '=', 'pending').where('expires_at', '>', now);
  } else if (q.status === 'expired') {
    query = query.where((eb) =>
      eb.or([eb('status', '=', 'expired'), eb.and([eb('status', '=', 'pending'), eb('expires_at', '<=', now)])]),
    );
  } else if (q.status !== null) {
    query = query.where('status', '=', q.status);
  }
  const c = q.before;
  if (c !== null) {
    query = query.where((eb) =>
      eb.or([eb('created_at', '<', c.createdAt), eb.and([eb('created_at', '=', c.createdAt), eb('id', '<', c.id)])]),
    );
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
}

export interface TransactionSearchQuery {
  /** Null: every merchant (an operator, unfiltered); otherwise only these (an empty list finds nothing). */
  merchants: readonly string[] | null;
  mode: Mode | null;
  /** The status a reader sees at `now` (a pending row past its expiry counts as expired). */
  status: TransactionStatus | null;
  now: number;
  /** created_at >= createdFrom and < createdBefore, when set. */
  createdFrom: number | null;
  createdBefore: number | null;
  /** Only the sales of this cashier (transactions.created_by_user_id); absent or null: anyone's. */
  createdBy?: string | null;
  /** The transaction of its trxid; else a ref or e-mail containing the text, or a total_amount equal to its amount. */
  search: TransactionSearch | null;
  /** Rows past this (created_at, id): older ones (returned newest first) or newer ones (oldest first). */
  cursor: { createdAt: number; id: string; toward: 'older' | 'newer' } | null;
  limit: number;
}

/** `text` inside a LIKE pattern (lower case), its wildcards and the escape character taken literally. */
function containing(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The console's transaction list: newest first, or toward newer rows oldest first (the caller turns
 * that page around). The scope is part of the SQL. One merchant and mode is read in the order of the
 * transactions_list index (merchant_id, mode, created_at, id), so a page costs a range of that index;
 * several merchants or both modes at once have no index in that order (the rows in scope are sorted).
 * A search's LIKE reads every row of the scope and date range until the page is full.
 *
 * Ids are ordered and compared byte by byte (PostgreSQL's "C" collation; SQLite's BINARY already is),
 * so that the service can merge pages of several merchants in JavaScript's string order.
 */
export function searchTransactionPage(db: Db, q: TransactionSearchQuery): Promise<TransactionsTable[]> {
  if (q.merchants !== null && q.merchants.length === 0) return Promise.resolve([]);
  const { now } = q;
  const idKey = db.dialect === 'postgres' ? sql<string>`id collate "C"` : sql<string>`id`;
  let query = db.selectFrom('transactions').selectAll();
  if (q.merchants !== null)
    query =
      q.merchants.length === 1
        ? query.where('merchant_id', '=', q.merchants[0]!)
        : query.where('merchant_id', 'in', q.merchants);
  if (q.mode !== null) query = query.where('mode', '=', q.mode);
  if (q.status === 'pending') {
    query = query.where('status', '=', 'pending').where('expires_at', '>', now);
  } else if (q.status === 'expired') {
    query = query.where((eb) =>
      eb.or([eb('status', '=', 'expired'), eb.and([eb('status', '=', 'pending'), eb('expires_at', '<=', now)])]),
    );
  } else if (q.status !== null) {
    query = query.where('status', '=', q.status);
  }
  if (q.createdFrom !== null) query = query.where('created_at', '>=', q.createdFrom);
  if (q.createdBefore !== null) query = query.where('created_at', '<', q.createdBefore);
  if (q.createdBy != null) query = query.where('created_by_user_id', '=', q.createdBy);
  const s = q.search;
  if (s !== null && s.trxid !== null) {
    // A transaction id is looked up by its key, not searched for in every row.
    query = query.where('id', '=', s.trxid);
  } else if (s !== null) {
    const pattern = containing(s.text);
    query = query.where((eb) =>
      eb.or([
        ...(s.amount !== null ? [eb('total_amount', '=', s.amount)] : []),
        sql<boolean>`lower(ref) like ${pattern} escape '\\'`,
        sql<boolean>`lower(email) like ${pattern} escape '\\'`,
      ]),
    );
  }
  const c = q.cursor;
  if (c !== null) {
    const past = c.toward === 'older' ? '<' : '>';
    // created_at first on its own, so the index range starts at the cursor.
    query = query
      .where('created_at', c.toward === 'older' ? '<=' : '>=', c.createdAt)
      .where((eb) => eb.or([eb('created_at', past, c.createdAt), eb(idKey, past, c.id)]));
  }
  const direction = c?.toward === 'newer' ? 'asc' : 'desc';
  return query.orderBy('created_at', direction).orderBy(idKey, direction).limit(q.limit).execute();
}

/** One transaction by id, only if it is of one of `merchants` (null: any merchant). */
export function readScopedTransaction(
  db: Db,
  merchants: readonly string[] | null,
  id: string,
): Promise<TransactionsTable | undefined> {
  if (merchants !== null && merchants.length === 0) return Promise.resolve(undefined);
  let query = db.selectFrom('transactions').selectAll().where('id', '=', id);
  if (merchants !== null) query = query.where('merchant_id', 'in', merchants);
  return query.executeTakeFirst();
}

/** The payments of these ids (not empty), in one read. */
export function readPaymentsByIds(db: Db, ids: string[]): Promise<PaymentsTable[]> {
  return db.selectFrom('payments').selectAll().where('id', 'in', ids).execute();
}

/** A cashier's sales made at or after `since`, newest first (the transactions_created_by index, migration 015). */
export function readSalesOf(db: Db, userId: string, since: number, limit: number): Promise<TransactionsTable[]> {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('created_by_user_id', '=', userId)
    .where('created_at', '>=', since)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
