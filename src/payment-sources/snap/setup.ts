import type { Actor } from '../../domain/actor.js';
import type { Deps } from '../../services/deps.js';
import { insertSource, requireMerchant } from '../common.js';
import { parseSnapConfig } from './config.js';
import { forgetSnapSources } from './sources.js';

/**
 * Validates a SNAP BI source configuration (the JSON file of `source add --type snap --config FILE`)
 * and stores it as a payment source of the merchant. The stored config is the validated one, defaults
 * filled in, so what runs is what `source list` would show.
 */
export async function addSnapSource(
  deps: Deps,
  merchantId: string,
  config: unknown,
  actor?: Actor,
  name?: string | null,
): Promise<{ id: string }> {
  const parsed = parseSnapConfig(config);
  await requireMerchant(deps, merchantId);
  const id = await insertSource(deps, { merchantId, type: 'snap', config: parsed, actor, name });
  forgetSnapSources(deps, merchantId);
  return { id };
}
