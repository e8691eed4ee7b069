import type { Actor } from '../../domain/actor.js';
import { randomBase62 } from '../../domain/ids.js';
import type { Deps } from '../../services/deps.js';
import { inboundEventsPath, insertSource, parseMode, requireMerchant } from '../common.js';

export interface WebhookSourceCreated {
  id: string;
  /** Shown once: the sender needs it to sign, and it is not printed again. */
  secret: string;
  url: string;
}

/**
 * The secret is stored as given to the sender (HMAC verification needs it, a hash would not do);
 * 43 base62 characters carry 256 random bits.
 */
export async function addWebhookSource(
  deps: Deps,
  input: { merchantId: string; mode?: string; actor?: Actor; name?: string | null },
): Promise<WebhookSourceCreated> {
  await requireMerchant(deps, input.merchantId);
  const mode = parseMode(input.mode);
  const secret = `whsec_${randomBase62(43)}`;
  const id = await insertSource(deps, {
    merchantId: input.merchantId,
    type: 'webhook',
    config: { mode, secret },
    actor: input.actor,
    name: input.name,
  });
  return { id, secret, url: inboundEventsPath(id) };
}
