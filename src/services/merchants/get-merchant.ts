import { AppError } from '../../domain/errors.js';
import { merchantById } from '../../storage/queries/merchants.js';
import type { MerchantsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

export async function getMerchant(deps: Deps, id: string): Promise<MerchantsTable> {
  const row = await merchantById(deps.db, id);
  if (!row) throw new AppError('merchant_not_found', `no merchant ${id}`, { param: 'merchant' });
  return row;
}
