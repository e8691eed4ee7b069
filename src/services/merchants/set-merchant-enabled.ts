import { setMerchantDisabledAt } from '../../storage/queries/merchants.js';
import type { MerchantsTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import type { Viewer } from '../../domain/viewer.js';
import { operatorsMerchant } from './operators-merchant.js';

/**
 * Disables a merchant (its API keys are refused with merchant_disabled; its transactions stay readable)
 * or enables it again. This process forgets its cached keys at once; another instance or process keeps
 * accepting a key it has cached for at most PRINCIPAL_CACHE_MS.
 */
export async function setMerchantEnabled(
  deps: Deps,
  viewer: Viewer,
  input: { id: string; enabled: boolean },
): Promise<MerchantsTable> {
  const merchant = await operatorsMerchant(deps, viewer, input.id);
  const now = deps.now();
  const disabledAt = input.enabled ? null : (merchant.disabled_at ?? now);
  await deps.db.runInTransaction(async (trx) => {
    await setMerchantDisabledAt(trx, merchant.id, disabledAt);
    await writeAudit(trx, {
      actor: viewer.actor,
      action: input.enabled ? 'merchant.enable' : 'merchant.disable',
      subjectType: 'merchant',
      subjectId: merchant.id,
      now,
    });
  });
  deps.state.principals.clear(performance.now());
  return { ...merchant, disabled_at: disabledAt };
}
