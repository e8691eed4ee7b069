import { SYSTEM_ACTOR, type Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { newMerchantId } from '../../domain/ids.js';
import { parseMerchantName } from '../../domain/merchant-name.js';
import { parseMerchantQris } from '../../domain/merchant-qris.js';
import type { Viewer } from '../../domain/viewer.js';
import { insertMerchant, lockNmid, merchantsWithNmids } from '../../storage/queries/merchants.js';
import { insertUserMerchants, lockAndCountMerchantsOfUser } from '../../storage/queries/users.js';
import type { Tx } from '../../storage/executor.js';
import type { MerchantsTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { seenBy } from '../../domain/viewer.js';

export interface CreateMerchantInput {
  name: string;
  qris: string;
  /**
   * Whether its live keys work at once. Merchants made by operators are; a merchant a self-service
   * user adds waits for an operator when LIVE_KEYS=approval.
   */
  liveApproved?: boolean;
  /** Who adds it, for the audit log: `user:<email>` from the console, the operator's name from the CLI. */
  actor?: Actor;
  /** A self-service user who adds it: it becomes a member, in the same database transaction. */
  memberUserId?: string;
  /** Its daily create quota (null or absent: none). */
  dailyCreateQuota?: number | null;
  /**
   * Save it even when a merchant with the same NMID exists (an operator's decision: one owner with two
   * tills, say). Ignored for a self-service add (memberUserId), which is always refused.
   */
  allowDuplicateNmid?: boolean;
  /** The console user who adds it: a duplicate NMID's merchant is named only if this viewer may see it. Absent: the CLI, which sees all. */
  viewer?: Viewer;
}

export async function createMerchant(deps: Deps, input: CreateMerchantInput): Promise<MerchantsTable> {
  const name = parseMerchantName(input.name);
  const parsed = parseMerchantQris(input.qris);
  const row: MerchantsTable = {
    id: newMerchantId(),
    name,
    qris_static: parsed.payload,
    merchant_name: parsed.merchantName,
    merchant_city: parsed.merchantCity,
    nmid: parsed.nmid,
    acquirer: parsed.acquirer,
    created_at: deps.now(),
    live_approved_at: input.liveApproved === false ? null : deps.now(),
    daily_create_quota: input.dailyCreateQuota ?? null,
  };
  const overrides = input.allowDuplicateNmid === true && !input.memberUserId;
  await deps.db.runInTransaction(async (trx) => {
    if (input.memberUserId) await checkRoomForAnother(trx, deps.config.merchantsPerUser, input.memberUserId);
    const duplicateOf =
      row.nmid === null ? [] : await checkNmidFree(trx, deps, row.nmid, overrides, input.viewer ?? null);
    await insertMerchant(trx, row);
    if (input.memberUserId) await insertUserMerchants(trx, input.memberUserId, [row.id], row.created_at);
    await writeAudit(trx, {
      actor: input.actor ?? SYSTEM_ACTOR,
      action: 'merchant.add',
      subjectType: 'merchant',
      subjectId: row.id,
      details: {
        name,
        merchant_name: row.merchant_name,
        merchant_city: row.merchant_city,
        nmid: row.nmid,
        // Saved anyway over a duplicate NMID: which merchants already had it, for whoever reads the log later.
        ...(duplicateOf.length > 0 ? { duplicate_nmid_of: duplicateOf } : {}),
      },
      now: row.created_at,
    });
  });
  return row;
}

/**
 * A self-service user belongs to at most MERCHANTS_PER_USER merchants: counted in the add's own database
 * transaction, under the user's row lock, so two adds at once cannot both take the last place.
 */
async function checkRoomForAnother(trx: Tx, limit: number, userId: string): Promise<void> {
  if ((await lockAndCountMerchantsOfUser(trx, userId)) >= limit) {
    throw new AppError(
      'merchant_limit_reached',
      `a self-service user may have at most ${limit} merchants (MERCHANTS_PER_USER)`,
    );
  }
}

/**
 * The same static QRIS (one NMID) saved as two merchants splits one till's payments between them, so a
 * second one is refused with duplicate_nmid unless an operator decided to save it anyway. The NMID is
 * locked for the rest of the transaction, so two adds at once cannot both find it free. Returns the ids
 * already holding it (when overridden), for the audit entry.
 */
async function checkNmidFree(
  trx: Tx,
  deps: Deps,
  nmid: string,
  overrides: boolean,
  viewer: Viewer | null,
): Promise<string[]> {
  await lockNmid(trx, deps.db.dialect, nmid);
  const holders = await merchantsWithNmids(trx, [nmid]);
  if (holders.length === 0 || overrides) return holders.map((h) => h.id);
  const named = seenBy(viewer, holders).map((h) => `${h.name} (${h.id})`);
  const which = named.length > 0 ? `: ${named.join(', ')}` : '';
  throw new AppError('duplicate_nmid', `a merchant with NMID ${nmid} is already saved on this gateway${which}`, {
    param: 'qris',
  });
}
