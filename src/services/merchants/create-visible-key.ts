import { AppError } from '../../domain/errors.js';
import type { Mode } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import type { Viewer } from '../../domain/viewer.js';
import type { CreatedApiKey } from './api-key-summary.js';
import { createApiKey } from './create-api-key.js';
import { getVisibleMerchant } from './get-visible-merchant.js';

/** A new key for one of the viewer's merchants (any merchant for an operator); audited as the viewer. */
export async function createVisibleKey(
  deps: Deps,
  viewer: Viewer,
  input: { merchantId: string; mode: string },
): Promise<CreatedApiKey> {
  if (input.mode !== 'test' && input.mode !== 'live')
    throw new AppError('invalid_parameter', 'mode must be test or live', { param: 'mode' });
  const merchant = await getVisibleMerchant(deps, viewer, input.merchantId);
  return createApiKey(deps, { merchantId: merchant.id, mode: input.mode as Mode, actor: viewer.actor });
}
