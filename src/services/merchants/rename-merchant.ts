import { parseMerchantName } from '../../domain/merchant-name.js';
import { setMerchantName } from '../../storage/queries/merchants.js';
import type { MerchantsTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import type { Viewer } from '../../domain/viewer.js';
import { operatorsMerchant } from './operators-merchant.js';

export async function renameMerchant(
  deps: Deps,
  viewer: Viewer,
  input: { id: string; name: string },
): Promise<MerchantsTable> {
  const merchant = await operatorsMerchant(deps, viewer, input.id);
  const name = parseMerchantName(input.name);
  const now = deps.now();
  await deps.db.runInTransaction(async (trx) => {
    await setMerchantName(trx, merchant.id, name);
    await writeAudit(trx, {
      actor: viewer.actor,
      action: 'merchant.rename',
      subjectType: 'merchant',
      subjectId: merchant.id,
      details: { from: merchant.name, to: name },
      now,
    });
  });
  return { ...merchant, name };
}
