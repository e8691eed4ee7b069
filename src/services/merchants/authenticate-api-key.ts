import { AppError } from '../../domain/errors.js';
import { liveKeysState } from '../../domain/live-approval.js';
import { apiKeyMode, hashApiKey, hashesEqual } from '../../domain/api-key.js';
import { apiKeyByHash } from '../../storage/queries/api-keys.js';
import type { Deps } from '../deps.js';
import type { Principal } from './principal-cache.js';
import { apiKeyActor } from '../../domain/actor.js';

/**
 * Resolves a presented key. The lookup is by SHA-256 of the key, so the index search reveals nothing
 * about the secret through timing; the final comparison is constant-time all the same.
 */
export async function authenticateApiKey(deps: Deps, key: string): Promise<Principal> {
  const mode = apiKeyMode(key);
  if (mode === null) throw new AppError('invalid_api_key', 'the API key is not valid');
  const hash = hashApiKey(key);
  const row = await apiKeyByHash(deps.db, hash);
  if (!row || !hashesEqual(row.key_hash, hash) || row.revoked_at !== null || row.mode !== mode) {
    throw new AppError('invalid_api_key', 'the API key is not valid or has been revoked');
  }
  // A refusal is never cached, so enabling the merchant again lets its keys in at once.
  if (row.merchant_disabled_at != null) throw new AppError('merchant_disabled', "the key's merchant has been disabled");
  // A self-service merchant's live keys wait for an operator (LIVE_KEYS=approval); test keys work at once.
  if (row.mode === 'live') {
    const state = liveKeysState(
      { live_approved_at: row.merchant_live_approved_at, live_rejected_at: row.merchant_live_rejected_at },
      deps.config.liveKeys,
    );
    if (state === 'waiting')
      throw new AppError(
        'live_not_approved',
        "this merchant's live keys wait for an operator's approval; test keys work meanwhile",
      );
    if (state === 'rejected') {
      throw new AppError(
        'live_rejected',
        "an operator of this gateway rejected this merchant's live keys; test keys still work. Ask the operator to look at it again",
      );
    }
  }
  return { keyId: row.id, merchantId: row.merchant_id, mode: row.mode, actor: apiKeyActor(row.id) };
}

/**
 * authenticateApiKey with its successful answers reused for PRINCIPAL_CACHE_MS: one select saved per
 * request. Each success notes the key as used, in memory only (flushKeyUses writes it, once a minute).
 */
export async function authenticateApiKeyCached(deps: Deps, key: string): Promise<Principal> {
  const hash = hashApiKey(key);
  const startedAt = performance.now();
  const hit = deps.state.principals.get(hash, startedAt);
  if (hit) {
    deps.state.keyUses.add(hit.keyId);
    return hit;
  }
  const principal = await authenticateApiKey(deps, key);
  deps.state.principals.set(hash, principal, startedAt);
  deps.state.keyUses.add(principal.keyId);
  return principal;
}
