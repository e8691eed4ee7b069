// The `merchants` table.
import { type Kysely, sql } from 'kysely';
import { prepareQuery } from '../engine/prepared.js';
import type { Db, Executor, Tx } from '../executor.js';
import type { DB, Dialect, MerchantsTable } from '../schema.js';
import type { UniqueCodeMode } from '../../domain/unique-codes.js';

export async function insertMerchant(db: Executor, row: MerchantsTable): Promise<void> {
  await db.insertInto('merchants').values(row).execute();
}

/** Every merchant, oldest first. */
export async function allMerchants(db: Executor): Promise<MerchantsTable[]> {
  return db.selectFrom('merchants').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function merchantById(db: Executor, id: string): Promise<MerchantsTable | undefined> {
  return db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Whether a merchant with this id exists (reads only its id). */
export async function merchantExists(db: Executor, id: string): Promise<boolean> {
  const found = await db.selectFrom('merchants').select('id').where('id', '=', id).executeTakeFirst();
  return found !== undefined;
}

/** Whether there is any merchant at all. */
export async function anyMerchantExists(db: Executor): Promise<boolean> {
  const any = await db.selectFrom('merchants').select('id').limit(1).executeTakeFirst();
  return any !== undefined;
}

/** The oldest merchant saved with exactly this static QRIS (the sandbox merchant's is built in), or undefined. */
export async function firstMerchantIdWithStaticQris(db: Db, qris: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('merchants')
    .select('id')
    .where('qris_static', '=', qris)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** The merchant's static QRIS as stored, or undefined when there is no such merchant. */
export async function readMerchantStaticQris(
  db: Db,
  merchantId: string,
): Promise<{ qris: string; uniqueCodeMode: UniqueCodeMode } | undefined> {
  const row = await db
    .selectFrom('merchants')
    .select(['qris_static', 'unique_code_mode'])
    .where('id', '=', merchantId)
    .executeTakeFirst();
  return row && { qris: row.qris_static, uniqueCodeMode: row.unique_code_mode ?? 'add' };
}

/** Sets how a merchant's unique code makes the total; false when there is no such merchant. */
export async function setMerchantUniqueCodeMode(
  db: Executor,
  merchantId: string,
  mode: UniqueCodeMode,
): Promise<boolean> {
  const result = await db
    .updateTable('merchants')
    .set({ unique_code_mode: mode })
    .where('id', '=', merchantId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Disables a merchant that is still enabled (a second disable keeps the first time). */
export async function markMerchantDisabled(db: Executor, id: string, now: number): Promise<void> {
  await db
    .updateTable('merchants')
    .set({ disabled_at: now })
    .where('id', '=', id)
    .where('disabled_at', 'is', null)
    .execute();
}

/** Merchants whose live keys wait for an operator's approval (not rejected), oldest first. */
export async function merchantsAwaitingLive(db: Executor): Promise<MerchantsTable[]> {
  return db
    .selectFrom('merchants')
    .selectAll()
    .where('live_approved_at', 'is', null)
    .where('live_rejected_at', 'is', null)
    .where('disabled_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(100)
    .execute();
}

/** How many merchants wait for an operator's approval (the console navigation's count). */
export async function countMerchantsAwaitingLive(db: Db): Promise<number> {
  const row = await db
    .selectFrom('merchants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('live_approved_at', 'is', null)
    .where('live_rejected_at', 'is', null)
    .where('disabled_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Merchants whose live keys an operator rejected (and has not asked again about), latest rejection first. */
export async function merchantsRejectedLive(db: Executor): Promise<MerchantsTable[]> {
  return db
    .selectFrom('merchants')
    .selectAll()
    .where('live_approved_at', 'is', null)
    .where('live_rejected_at', 'is not', null)
    .orderBy('live_rejected_at', 'desc')
    .orderBy('id')
    .limit(100)
    .execute();
}

/** Approves a merchant's live keys (clearing a rejection); false when it was approved already (or does not exist). */
export async function markLiveApproved(db: Executor, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('merchants')
    .set({ live_approved_at: now, live_rejected_at: null, live_rejected_by: null })
    .where('id', '=', id)
    .where('live_approved_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Rejects the live keys of a merchant that waits for approval; false when it does not wait (approved, rejected already). */
export async function markLiveRejected(trx: Tx, id: string, now: number, by: string): Promise<boolean> {
  const result = await trx
    .updateTable('merchants')
    .set({ live_rejected_at: now, live_rejected_by: by })
    .where('id', '=', id)
    .where('live_approved_at', 'is', null)
    .where('live_rejected_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Takes a rejection back, so the merchant waits in the queue again; false when it was not rejected. */
export async function clearLiveRejected(trx: Tx, id: string): Promise<boolean> {
  const result = await trx
    .updateTable('merchants')
    .set({ live_rejected_at: null, live_rejected_by: null })
    .where('id', '=', id)
    .where('live_approved_at', 'is', null)
    .where('live_rejected_at', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The merchants saved with one of these NMIDs, oldest first (at most 100). */
export async function merchantsWithNmids(
  db: Executor,
  nmids: readonly string[],
): Promise<Array<{ id: string; name: string; nmid: string }>> {
  if (nmids.length === 0) return [];
  const rows = await db
    .selectFrom('merchants')
    .select(['id', 'name', 'nmid'])
    .where('nmid', 'in', nmids)
    .orderBy('created_at')
    .orderBy('id')
    .limit(100)
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.name, nmid: r.nmid! }));
}

/**
 * Holds one NMID until the transaction ends, so two adds of the same NMID at once cannot both find none:
 * on PostgreSQL a transaction-level advisory lock on the NMID's hash; SQLite runs one writer at a time,
 * so the check and the insert of one unit of work already see each other.
 */
export async function lockNmid(trx: Tx, dialect: Dialect, nmid: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(hashtext(${`merchants.nmid:${nmid}`}))`.execute(trx);
}

/** The ids and names of these merchants (null: of every merchant), by name. */
export async function merchantNames(
  db: Db,
  ids: readonly string[] | null,
): Promise<Array<{ id: string; name: string }>> {
  if (ids !== null && ids.length === 0) return [];
  let query = db.selectFrom('merchants').select(['id', 'name']);
  if (ids !== null) query = query.where('id', 'in', ids);
  return query.orderBy('name').orderBy('id').execute();
}

/** The merchants in `merchants` (null: every merchant), oldest first. */
export async function merchantsInScope(db: Db, merchants: readonly string[] | null): Promise<MerchantsTable[]> {
  if (merchants !== null && merchants.length === 0) return [];
  let query = db.selectFrom('merchants').selectAll();
  if (merchants !== null) query = query.where('id', 'in', merchants);
  return query.orderBy('created_at').orderBy('id').execute();
}

/** One merchant, if it is in `merchants` (null: any merchant). */
export async function merchantInScope(
  db: Executor,
  id: string,
  merchants: readonly string[] | null,
): Promise<MerchantsTable | undefined> {
  if (merchants !== null && merchants.length === 0) return undefined;
  let query = db.selectFrom('merchants').selectAll().where('id', '=', id);
  if (merchants !== null) query = query.where('id', 'in', merchants);
  return query.executeTakeFirst();
}

export async function setMerchantName(trx: Tx, id: string, name: string): Promise<boolean> {
  const result = await trx.updateTable('merchants').set({ name }).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Disables (a time) or enables (null) a merchant; false when there is no such merchant. */
export async function setMerchantDisabledAt(trx: Tx, id: string, disabledAt: number | null): Promise<boolean> {
  const result = await trx
    .updateTable('merchants')
    .set({ disabled_at: disabledAt })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** When an operator approved the merchant's live keys: null while it waits, undefined for no such merchant. */
export async function merchantLiveApprovedAt(db: Executor, id: string): Promise<number | null | undefined> {
  const row = await db.selectFrom('merchants').select('live_approved_at').where('id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : (row.live_approved_at ?? null);
}

/** What a batch of payment reports needs of a merchant before it writes the outbox (record-payment.ts). */
export interface MerchantReportFacts {
  /** When it was disabled (null: enabled, undefined: no such merchant). */
  disabledAt: number | null | undefined;
  /** Its endpoints that are not disabled: id and subscribed event types (JSON). */
  endpoints: { id: string; events: string }[];
  /** Its active alert channels' ids. */
  channels: string[];
}

// The three reads a batch of reports makes of its merchant (when it was disabled, the endpoints and the
// channels the outbox fans out to) as one statement: on PostgreSQL two round trips fewer per batch.
// Each branch is tagged by `kind`; values travel as text (disabled_at as a decimal string).
const reportFacts = prepareQuery((db: Kysely<DB>, p: { merchant: string; endpoints: string; channels: string }) =>
  db
    .selectFrom('merchants')
    .select([
      sql<string>`'m'`.as('kind'),
      sql<string | null>`cast(disabled_at as text)`.as('a'),
      sql<string | null>`null`.as('b'),
    ])
    .where('id', '=', p.merchant)
    .unionAll(
      db
        .selectFrom('webhook_endpoints')
        .select([sql<string>`'e'`.as('kind'), sql<string | null>`id`.as('a'), sql<string | null>`events`.as('b')])
        .where('merchant_id', '=', p.endpoints)
        .where('status', '!=', 'disabled'),
    )
    .unionAll(
      db
        .selectFrom('notify_channels')
        .select([sql<string>`'c'`.as('kind'), sql<string | null>`id`.as('a'), sql<string | null>`null`.as('b')])
        .where('merchant_id', '=', p.channels)
        .where('status', '=', 'active'),
    ),
);

export async function merchantReportFacts(db: Executor, id: string): Promise<MerchantReportFacts> {
  const rows = await reportFacts.execute(db, { merchant: id, endpoints: id, channels: id });
  const facts: MerchantReportFacts = { disabledAt: undefined, endpoints: [], channels: [] };
  for (const row of rows) {
    if (row.kind === 'm') facts.disabledAt = row.a === null ? null : Number(row.a);
    else if (row.kind === 'e') facts.endpoints.push({ id: row.a as string, events: row.b as string });
    else facts.channels.push(row.a as string);
  }
  return facts;
}
