// Payment links: merchants' public handles (migration 010). A lookup by handle uses the partial unique
// index merchants_payment_link_handle. The console's reads and writes take the viewer's merchant scope
// (null: every merchant; a list: only those), so another merchant's row is never found.
import type { Executor, Tx } from '../executor.js';

type Scope = readonly string[] | null;

export interface MerchantLinkRow {
  id: string;
  name: string;
  merchant_name: string;
  merchant_city: string;
  payment_link_handle: string | null;
  disabled_at: number | null;
  /** Null while its live payments wait for an operator's approval (LIVE_KEYS=approval, migration 008). */
  live_approved_at: number | null;
  /** When an operator rejected its live keys (migration 012); null: not rejected. */
  live_rejected_at: number | null;
}

const COLUMNS = [
  'id',
  'name',
  'merchant_name',
  'merchant_city',
  'payment_link_handle',
  'disabled_at',
  'live_approved_at',
  'live_rejected_at',
] as const;

type Stored = Omit<MerchantLinkRow, 'payment_link_handle' | 'disabled_at' | 'live_approved_at' | 'live_rejected_at'> & {
  payment_link_handle?: string | null;
  disabled_at?: number | null;
  live_approved_at?: number | null;
  live_rejected_at?: number | null;
};

function normalise(row: Stored): MerchantLinkRow {
  return {
    ...row,
    payment_link_handle: row.payment_link_handle ?? null,
    disabled_at: row.disabled_at ?? null,
    live_approved_at: row.live_approved_at ?? null,
    live_rejected_at: row.live_rejected_at ?? null,
  };
}

/** The merchant whose link has this (lower-case) handle, disabled or not. */
export async function merchantByLinkHandle(db: Executor, handle: string): Promise<MerchantLinkRow | undefined> {
  const row = await db
    .selectFrom('merchants')
    .select(COLUMNS)
    .where('payment_link_handle', '=', handle)
    .executeTakeFirst();
  return row && normalise(row);
}

/** A merchant the viewer may see, by id. */
export async function merchantLinkInScope(
  db: Executor,
  scope: Scope,
  id: string,
): Promise<MerchantLinkRow | undefined> {
  if (scope !== null && scope.length === 0) return undefined;
  let q = db.selectFrom('merchants').select(COLUMNS).where('id', '=', id);
  if (scope !== null) q = q.where('id', 'in', scope);
  const row = await q.executeTakeFirst();
  return row && normalise(row);
}

/** One page of the merchants the viewer may see, by name, and how many there are. */
export async function merchantLinksInScope(
  db: Executor,
  scope: Scope,
  limit: number,
  offset: number,
): Promise<{ rows: MerchantLinkRow[]; total: number }> {
  if (scope !== null && scope.length === 0) return { rows: [], total: 0 };
  let list = db.selectFrom('merchants').select(COLUMNS);
  let count = db.selectFrom('merchants').select((eb) => eb.fn.countAll<number>().as('n'));
  if (scope !== null) {
    list = list.where('id', 'in', scope);
    count = count.where('id', 'in', scope);
  }
  const [rows, total] = await Promise.all([
    list.orderBy('name').orderBy('id').limit(limit).offset(offset).execute(),
    count.executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map(normalise), total: Number(total.n) };
}

/** Sets (or, with null, clears) a merchant's handle within the viewer's scope; false when no such merchant is in it. */
export async function setLinkHandleInScope(trx: Tx, scope: Scope, id: string, handle: string | null): Promise<boolean> {
  if (scope !== null && scope.length === 0) return false;
  let q = trx.updateTable('merchants').set({ payment_link_handle: handle }).where('id', '=', id);
  if (scope !== null) q = q.where('id', 'in', scope);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Frees a merchant's handle (any merchant may then take it); the handle it had, or null. */
export async function clearLinkHandleOfMerchant(trx: Tx, merchantId: string): Promise<string | null> {
  const row = await trx
    .selectFrom('merchants')
    .select('payment_link_handle')
    .where('id', '=', merchantId)
    .executeTakeFirst();
  const handle = row?.payment_link_handle ?? null;
  if (handle !== null)
    await trx.updateTable('merchants').set({ payment_link_handle: null }).where('id', '=', merchantId).execute();
  return handle;
}
