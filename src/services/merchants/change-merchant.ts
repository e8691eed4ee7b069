import { userActor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { setMerchantDisabledAt, setMerchantName } from '../../storage/queries/merchants.js';
import type { MerchantsTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { isOperator, type Viewer } from '../users/viewer.js';
import { checkMerchantName } from './create-merchant.js';
import { getViewerMerchant } from './viewer-merchants.js';

/** Merchants are changed by operators only; to anyone else the merchant does not exist. */
async function operatorsMerchant(deps: Deps, viewer: Viewer, id: string): Promise<MerchantsTable> {
  if (!isOperator(viewer)) throw new AppError('merchant_not_found', `no merchant ${id}`, { param: 'merchant' });
  return getViewerMerchant(deps, viewer, id);
}

export async function renameMerchant(deps: Deps, viewer: Viewer, input: { id: string; name: string }): Promise<MerchantsTable> {
  const merchant = await operatorsMerchant(deps, viewer, input.id);
  const name = checkMerchantName(input.name);
  const now = deps.now();
  await deps.db.runInTransaction(async (trx) => {
    await setMerchantName(trx, merchant.id, name);
    await writeAudit(trx, { actor: userActor(viewer), action: 'merchant.rename', subjectType: 'merchant', subjectId: merchant.id, details: { from: merchant.name, to: name }, now });
  });
  return { ...merchant, name };
}

/**
 * Disables a merchant (its API keys are refused with merchant_disabled; its transactions stay readable)
 * or enables it again. This process forgets its cached keys at once; another instance or process keeps
 * accepting a key it has cached for at most PRINCIPAL_CACHE_MS.
 */
export async function setMerchantEnabled(deps: Deps, viewer: Viewer, input: { id: string; enabled: boolean }): Promise<MerchantsTable> {
  const merchant = await operatorsMerchant(deps, viewer, input.id);
  const now = deps.now();
  const disabledAt = input.enabled ? null : (merchant.disabled_at ?? now);
  await deps.db.runInTransaction(async (trx) => {
    await setMerchantDisabledAt(trx, merchant.id, disabledAt);
    await writeAudit(trx, { actor: userActor(viewer), action: input.enabled ? 'merchant.enable' : 'merchant.disable', subjectType: 'merchant', subjectId: merchant.id, now });
  });
  deps.state.principals.clear(performance.now());
  return { ...merchant, disabled_at: disabledAt };
}
