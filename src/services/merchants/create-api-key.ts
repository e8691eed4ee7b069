import { SYSTEM_ACTOR, type Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { apiKeyPrefix, generateApiKey, hashApiKey } from '../../domain/api-key.js';
import { newApiKeyId } from '../../domain/ids.js';
import { insertApiKey } from '../../storage/queries/api-keys.js';
import type { Mode } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { summary, type CreatedApiKey } from './api-key-summary.js';
import { getMerchant } from './get-merchant.js';

/** `actor` is who asks, for the audit log (a console user, or the operator running the CLI). */
export async function createApiKey(
  deps: Deps,
  input: { merchantId: string; mode: Mode; actor?: Actor },
): Promise<CreatedApiKey> {
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
    await writeAudit(trx, {
      actor: input.actor ?? SYSTEM_ACTOR,
      action: 'api_key.create',
      subjectType: 'api_key',
      subjectId: row.id,
      details: { merchant_id: row.merchant_id, mode: row.mode, prefix: row.key_prefix },
      now: row.created_at,
    });
  });
  return { key, ...summary(row) };
}
