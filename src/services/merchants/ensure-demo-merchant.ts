import { demoStaticQris } from '../../domain/demo-qris.js';
import type { CreatedApiKey } from './api-key-summary.js';
import { createApiKey } from './create-api-key.js';
import { createMerchant } from './create-merchant.js';
import type { Deps } from '../deps.js';
import { anyMerchantExists } from '../../storage/queries/merchants.js';
import type { MerchantsTable } from '../../storage/schema.js';

export async function ensureDemoMerchant(deps: Deps): Promise<{ merchant: MerchantsTable; key: CreatedApiKey } | null> {
  if (await anyMerchantExists(deps.db)) return null;
  const merchant = await createMerchant(deps, { name: 'Demo Sandbox Merchant', qris: demoStaticQris() });
  const key = await createApiKey(deps, { merchantId: merchant.id, mode: 'test' });
  return { merchant, key };
}
