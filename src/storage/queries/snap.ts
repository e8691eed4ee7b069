// SNAP's own tables (snap_polls, snap_tokens, snap_external_ids) and the transaction reads of SNAP's
// poller and notification route.
import type { Executor, Tx } from '../executor.js';
import type { SnapPollsTable, TransactionsTable } from '../schema.js';

// Query polls.

/** Written in the create's unit of work: the query poller's schedule for an acquirer-issued code. */
export async function insertSnapPoll(trx: Tx, row: SnapPollsTable): Promise<void> {
  await trx.insertInto('snap_polls').values(row).execute();
}

/** Polls due at `now`, soonest first. */
export async function dueSnapPolls(db: Executor, now: number, limit: number): Promise<SnapPollsTable[]> {
  return db
    .selectFrom('snap_polls')
    .selectAll()
    .where('next_poll_at', '<=', now)
    .orderBy('next_poll_at')
    .limit(limit)
    .execute();
}

/**
 * Moves a poll's next_poll_at from the value the caller read (`readNextPollAt`) to the next schedule,
 * counting the attempt; true when this caller won the claim.
 */
export async function claimSnapPoll(
  db: Executor,
  transactionId: string,
  readNextPollAt: number,
  next: { attempts: number; nextPollAt: number },
): Promise<boolean> {
  const claimed = await db
    .updateTable('snap_polls')
    .set({ attempts: next.attempts, next_poll_at: next.nextPollAt })
    .where('transaction_id', '=', transactionId)
    .where('next_poll_at', '=', readNextPollAt)
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

/** Ends a transaction's polling. */
export async function deleteSnapPoll(db: Executor, transactionId: string): Promise<void> {
  await db.deleteFrom('snap_polls').where('transaction_id', '=', transactionId).execute();
}

/** The transaction a poll asks about. */
export async function polledTransaction(db: Executor, transactionId: string): Promise<TransactionsTable | undefined> {
  return db.selectFrom('transactions').selectAll().where('id', '=', transactionId).executeTakeFirst();
}

// Gateway-issued B2B tokens.

export async function insertSnapToken(
  db: Executor,
  row: { tokenHash: string; sourceId: string; expiresAt: number },
): Promise<void> {
  await db
    .insertInto('snap_tokens')
    .values({ token_hash: row.tokenHash, source_id: row.sourceId, expires_at: row.expiresAt })
    .execute();
}

export async function snapTokenByHash(
  db: Executor,
  tokenHash: string,
): Promise<{ source_id: string; expires_at: number } | undefined> {
  return db
    .selectFrom('snap_tokens')
    .select(['source_id', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

// Notifications.

/**
 * The transaction a notification names, among those of the given merchants and sources: by the
 * acquirer's reference when given, else by our id.
 */
export async function notifiedTransaction(
  db: Executor,
  among: { merchantIds: string[]; sourceIds: string[] },
  ref: { referenceNo: string } | { transactionId: string },
): Promise<TransactionsTable | undefined> {
  let query = db
    .selectFrom('transactions')
    .selectAll()
    .where('merchant_id', 'in', among.merchantIds)
    .where('source_id', 'in', among.sourceIds);
  query =
    'referenceNo' in ref
      ? query.where('acquirer_reference', '=', ref.referenceNo)
      : query.where('id', '=', ref.transactionId);
  return query.executeTakeFirst();
}

/** Whether a source already sent this X-EXTERNAL-ID on this (Jakarta) day. */
export async function snapExternalIdSeen(
  db: Executor,
  key: { sourceId: string; day: string; externalId: string },
): Promise<boolean> {
  const seen = await db
    .selectFrom('snap_external_ids')
    .select('external_id')
    .where('source_id', '=', key.sourceId)
    .where('day', '=', key.day)
    .where('external_id', '=', key.externalId)
    .executeTakeFirst();
  return seen !== undefined;
}

/** Remembers a handled X-EXTERNAL-ID; one already remembered is left as it is. */
export async function rememberSnapExternalId(
  db: Executor,
  row: { sourceId: string; day: string; externalId: string; createdAt: number },
): Promise<void> {
  await db
    .insertInto('snap_external_ids')
    .values({ source_id: row.sourceId, day: row.day, external_id: row.externalId, created_at: row.createdAt })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

// Housekeeping.

export async function deleteSnapTokensExpiredBy(db: Executor, now: number): Promise<void> {
  await db.deleteFrom('snap_tokens').where('expires_at', '<=', now).execute();
}

export async function deleteSnapExternalIdsBefore(db: Executor, cutoff: number): Promise<void> {
  await db.deleteFrom('snap_external_ids').where('created_at', '<', cutoff).execute();
}
