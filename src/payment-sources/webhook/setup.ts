import type { Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { randomBase62 } from '../../domain/ids.js';
import type { Deps } from '../../services/deps.js';
import type { Mode } from '../../storage/schema.js';
import { findSource, insertSource, parseJsonObject, parseMode, requireMerchant } from '../common.js';

export interface WebhookSourceCreated {
  id: string;
  /** Shown once: the sender needs it to sign, and it is not printed again. */
  secret: string;
  url: string;
}

export interface WebhookSource {
  id: string;
  merchantId: string;
  mode: Mode;
  secret: string;
}

export const webhookEventsPath = (id: string): string => `/api/payment-sources/${id}/events`;

/**
 * The secret is stored as given to the sender (HMAC verification needs it, a hash would not do);
 * 43 base62 characters carry 256 random bits.
 */
export async function addWebhookSource(deps: Deps, input: { merchantId: string; mode?: string; actor?: Actor }): Promise<WebhookSourceCreated> {
  await requireMerchant(deps, input.merchantId);
  const mode = parseMode(input.mode);
  const secret = `whsec_${randomBase62(43)}`;
  const id = await insertSource(deps, { merchantId: input.merchantId, type: 'webhook', config: { mode, secret }, actor: input.actor });
  return { id, secret, url: webhookEventsPath(id) };
}

/** An enabled webhook source, else source_not_found (unknown, disabled and other types look alike). */
export async function findWebhookSource(deps: Deps, id: string): Promise<WebhookSource> {
  const row = await findSource(deps, id);
  const config = parseJsonObject(row?.config ?? null);
  if (row?.type !== 'webhook' || row.enabled !== 1 || typeof config.secret !== 'string' || config.secret === '') {
    throw new AppError('source_not_found', 'no such payment source');
  }
  return { id: row.id, merchantId: row.merchant_id, mode: config.mode === 'test' ? 'test' : 'live', secret: config.secret };
}
