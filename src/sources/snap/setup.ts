import { AppError } from '../../domain/errors.js';
import { newSourceId } from '../../domain/ids.js';
import type { Deps } from '../../services/deps.js';
import { parseSnapConfig } from './config.js';
import { forgetSnapSources } from './sources.js';

/**
 * Validates a SNAP BI source configuration (the JSON file of `source add --type snap --config FILE`)
 * and stores it as a payment source of the merchant. The stored config is the validated one, defaults
 * filled in, so what runs is what `source list` would show.
 */
export async function addSnapSource(deps: Deps, merchantId: string, config: unknown): Promise<{ id: string }> {
  const parsed = parseSnapConfig(config);
  const merchant = await deps.db.selectFrom('merchants').select('id').where('id', '=', merchantId).executeTakeFirst();
  if (!merchant) throw new AppError('merchant_not_found', `no merchant ${merchantId}`, { param: 'merchant' });
  const id = newSourceId();
  const now = deps.now();
  await deps.db
    .insertInto('payment_sources')
    .values({ id, merchant_id: merchantId, type: 'snap', config: JSON.stringify(parsed), state: null, enabled: 1, created_at: now, updated_at: now })
    .execute();
  forgetSnapSources(merchantId);
  return { id };
}
