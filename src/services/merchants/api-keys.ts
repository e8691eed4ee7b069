import { SYSTEM_ACTOR, type Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { apiKeyMode, apiKeyPrefix, generateApiKey, hashApiKey, hashesEqual } from '../../domain/api-key.js';
import { newApiKeyId } from '../../domain/ids.js';
import { apiKeyByHash, apiKeyById, apiKeysInOrder, insertApiKey, markApiKeyRevoked } from '../../storage/queries/api-keys.js';
import type { Mode } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import { getMerchant } from './create-merchant.js';
import type { Deps } from '../deps.js';
import { isoTime, isoTimeOrNull } from '../../domain/iso-time.js';
import type { Principal } from './principal-cache.js';

export interface ApiKeySummary {
  id: string;
  merchant_id: string;
  mode: Mode;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

export interface CreatedApiKey extends ApiKeySummary {
  /** The secret itself: returned once, never stored. */
  key: string;
}

export { PRINCIPAL_CACHE_MS, type Principal } from './principal-cache.js';

/** `actor` is who asks, for the audit log (a console user, or the operator running the CLI). */
export async function createApiKey(deps: Deps, input: { merchantId: string; mode: Mode; actor?: Actor }): Promise<CreatedApiKey> {
  if (input.mode !== 'test' && input.mode !== 'live') {
    throw new AppError('invalid_parameter', 'mode must be test or live', { param: 'mode' });
  }
  await getMerchant(deps, input.merchantId);
  const key = generateApiKey(input.mode);
  const row = {
    id: newApiKeyId(),
    merchant_id: input.merchantId,
    mode: input.mode,
    key_hash: hashApiKey(key),
    key_prefix: apiKeyPrefix(key),
    created_at: deps.now(),
    revoked_at: null,
  };
  await deps.db.runInTransaction(async (trx) => {
    await insertApiKey(trx, row);
    await writeAudit(trx, { actor: input.actor ?? SYSTEM_ACTOR, action: 'api_key.create', subjectType: 'api_key', subjectId: row.id, details: { merchant_id: row.merchant_id, mode: row.mode, prefix: row.key_prefix }, now: row.created_at });
  });
  return { key, ...summary(row) };
}

export async function listApiKeys(deps: Deps, merchantId?: string): Promise<ApiKeySummary[]> {
  return (await apiKeysInOrder(deps.db, merchantId)).map(summary);
}

export async function revokeApiKey(deps: Deps, id: string, actor: Actor = SYSTEM_ACTOR): Promise<ApiKeySummary> {
  const now = deps.now();
  const row = await deps.db.runInTransaction(async (trx) => {
    const found = await apiKeyById(trx, id);
    if (!found) throw new AppError('not_found', `no API key ${id}`, { param: 'id' });
    if (found.revoked_at !== null) return found;
    await markApiKeyRevoked(trx, id, now);
    await writeAudit(trx, { actor, action: 'api_key.revoke', subjectType: 'api_key', subjectId: id, details: { merchant_id: found.merchant_id, prefix: found.key_prefix }, now });
    return { ...found, revoked_at: now };
  });
  deps.state.principals.clear(performance.now());
  return summary(row);
}

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
  if (row.mode === 'live' && row.merchant_live_approved_at == null && deps.config.liveKeys === 'approval') {
    throw new AppError('live_not_approved', "this merchant's live keys wait for an operator's approval; test keys work meanwhile");
  }
  return { keyId: row.id, merchantId: row.merchant_id, mode: row.mode };
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

function summary(row: {
  id: string;
  merchant_id: string;
  mode: Mode;
  key_prefix: string;
  created_at: number;
  revoked_at: number | null;
}): ApiKeySummary {
  return {
    id: row.id,
    merchant_id: row.merchant_id,
    mode: row.mode,
    prefix: row.key_prefix,
    created_at: isoTime(row.created_at),
    revoked_at: isoTimeOrNull(row.revoked_at),
  };
}
