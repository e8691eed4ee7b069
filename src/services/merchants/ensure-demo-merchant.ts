import { buildQris } from '../../domain/qris/index.js';
import type { CreatedApiKey } from './api-key-summary.js';
import { createApiKey } from './create-api-key.js';
import { createMerchant } from './create-merchant.js';
import type { Deps } from '../deps.js';
import { anyMerchantExists, firstMerchantIdWithStaticQris } from '../../storage/queries/merchants.js';
import type { MerchantsTable } from '../../storage/schema.js';

// A fictional static QRIS: the acquirer domain, PAN and NMID are made up, so no real wallet will pay it.
// It exists so a first run can create and simulate-pay transactions with nothing configured.
export function demoStaticQris(): string {
  return buildQris([
    { tag: '00', value: '01' },
    { tag: '01', value: '11' },
    {
      tag: '26',
      value: '',
      children: [
        { tag: '00', value: 'ID.CO.EXAMPLE.WWW' },
        { tag: '01', value: '936000000000000001' },
        { tag: '02', value: 'DEMO000000000001' },
        { tag: '03', value: 'UMI' },
      ],
    },
    {
      tag: '51',
      value: '',
      children: [
        { tag: '00', value: 'ID.CO.QRIS.WWW' },
        { tag: '02', value: 'ID1020000000001' },
        { tag: '03', value: 'UMI' },
      ],
    },
    { tag: '52', value: '5812' },
    { tag: '53', value: '360' },
    { tag: '58', value: 'ID' },
    { tag: '59', value: 'Toko Demo Sandbox' },
    { tag: '60', value: 'JAKARTA' },
    { tag: '61', value: '10110' },
    { tag: '62', value: '', children: [{ tag: '07', value: 'A01' }] },
  ]);
}

/** On an empty database: a sandbox merchant and a test key, so the first `npm start` is usable at once. */
export async function ensureDemoMerchant(deps: Deps): Promise<{ merchant: MerchantsTable; key: CreatedApiKey } | null> {
  if (await anyMerchantExists(deps.db)) return null;
  const merchant = await createMerchant(deps, { name: 'Demo Sandbox Merchant', qris: demoStaticQris() });
  const key = await createApiKey(deps, { merchantId: merchant.id, mode: 'test' });
  return { merchant, key };
}

/** The sandbox merchant an earlier start made (found by its built-in QRIS), for the start banner's hint. */
export async function findDemoMerchantId(deps: Deps): Promise<string | null> {
  return (await firstMerchantIdWithStaticQris(deps.db, demoStaticQris())) ?? null;
}
