import { AppError } from '../../domain/errors.js';
import { newMerchantId } from '../../domain/ids.js';
import { parseStaticQris, type ParsedQris } from '../../domain/qris/index.js';
import { allMerchants, insertMerchant, merchantById } from '../../storage/queries/merchants.js';
import type { MerchantsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

export interface CreateMerchantInput {
  name: string;
  qris: string;
  /**
   * Whether its live keys work at once. Merchants made by operators are; a merchant a self-service
   * user adds waits for an operator when LIVE_KEYS=approval.
   */
  liveApproved?: boolean;
}

/**
 * The rule a merchant's code must pass to be saved (a static QRIS with a valid CRC); the console's
 * preview asks it too, so the two never disagree. Throws invalid_qris naming `qris`.
 */
export function parseMerchantQris(qris: string): ParsedQris {
  try {
    return parseStaticQris(qris.trim());
  } catch (err) {
    if (err instanceof AppError) throw new AppError('invalid_qris', err.message, { param: 'qris' });
    throw err;
  }
}

export async function createMerchant(deps: Deps, input: CreateMerchantInput): Promise<MerchantsTable> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 100) {
    throw new AppError('invalid_parameter', 'name must be 1 to 100 characters', { param: 'name' });
  }
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
  };
  await insertMerchant(deps.db, row);
  return row;
}

export async function listMerchants(deps: Deps): Promise<MerchantsTable[]> {
  return allMerchants(deps.db);
}

export async function getMerchant(deps: Deps, id: string): Promise<MerchantsTable> {
  const row = await merchantById(deps.db, id);
  if (!row) throw new AppError('merchant_not_found', `no merchant ${id}`, { param: 'merchant' });
  return row;
}
