import { allMerchants } from '../../storage/queries/merchants.js';
import type { MerchantsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

export async function listMerchants(deps: Deps): Promise<MerchantsTable[]> {
  return allMerchants(deps.db);
}
