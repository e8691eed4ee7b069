import { SYSTEM_ACTOR, type Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { apiKeyById, markApiKeyRevoked } from '../../storage/queries/api-keys.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { summary, type ApiKeySummary } from './api-key-summary.js';

export async function revokeApiKey(deps: Deps, id: string, actor: Actor = SYSTEM_ACTOR): Promise<ApiKeySummary> {
  const now = deps.now();
  const row = await deps.db.runInTransaction(async (trx) => {
    const found = await apiKeyById(trx, id);
    if (!found) throw new AppError('not_found', `no API key ${id}`, { param: 'id' });
    if (found.revoked_at !== null) return found;
    await markApiKeyRevoked(trx, id, now);
    await writeAudit(trx, {
      actor,
      action: 'api_key.revoke',
      subjectType: 'api_key',
      subjectId: id,
      details: { merchant_id: found.merchant_id, prefix: found.key_prefix },
      now,
    });
    return { ...found, revoked_at: now };
  });
  deps.state.principals.clear(performance.now());
  return summary(row);
}
