import { SYSTEM_ACTOR, type Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { newMerchantId } from '../../domain/ids.js';
import { parseMerchantName } from '../../domain/merchant-name.js';
import { parseMerchantQris } from '../../domain/merchant-qris.js';
import { insertMerchant } from '../../storage/queries/merchants.js';
import { insertUserMerchants, lockAndCountMerchantsOfUser } from '../../storage/queries/users.js';
import type { Tx } from '../../storage/executor.js';
import type { MerchantsTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';

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
  await deps.db.runInTransaction(async (trx) => {
    if (input.memberUserId) await checkRoomForAnother(trx, deps.config.merchantsPerUser, input.memberUserId);
    await insertMerchant(trx, row);
    if (input.memberUserId) await insertUserMerchants(trx, input.memberUserId, [row.id], row.created_at);
    await writeAudit(trx, {
      actor: input.actor ?? SYSTEM_ACTOR,
      action: 'merchant.add',
      subjectType: 'merchant',
      subjectId: row.id,
      details: { name, merchant_name: row.merchant_name, merchant_city: row.merchant_city, nmid: row.nmid },
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
    throw new AppError('merchant_limit_reached', `a self-service user may have at most ${limit} merchants (MERCHANTS_PER_USER)`);
  }
}
