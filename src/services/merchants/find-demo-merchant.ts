import { demoStaticQris } from '../../domain/demo-qris.js';
import { firstMerchantIdWithStaticQris } from '../../storage/queries/merchants.js';
import type { Deps } from '../deps.js';

/** The sandbox merchant an earlier start made (found by its built-in QRIS), for the start banner's hint. */
export async function findDemoMerchantId(deps: Deps): Promise<string | null> {
  return (await firstMerchantIdWithStaticQris(deps.db, demoStaticQris())) ?? null;
}
