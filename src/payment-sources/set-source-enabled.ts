import type { Actor } from '../domain/actor.js';
import { AppError } from '../domain/errors.js';
import { findSourceInScope } from './common.js';
import type { Deps } from '../services/deps.js';
import { writeAudit } from '../services/audit.js';
import { updatePaymentSourceEnabled } from '../storage/queries/sources.js';
import { presentSource, type SourceView } from './list-sources.js';

/**
 * Turns a source off (its webhook answers 404, its feed is not polled) or on again; audited.
 * `merchants` limits the sources that may be changed (a console user's); another merchant's source is
 * not found, exactly as an unknown one.
 */
export async function setSourceEnabled(
  deps: Deps,
  input: { id: string; enabled: boolean; actor: Actor; merchants?: readonly string[] | null },
): Promise<SourceView> {
  const row = await findSourceInScope(deps, input.id, input.merchants ?? null);
  if (!row) throw new AppError('source_not_found', `no payment source ${input.id}`, { param: 'id' });
  const now = deps.now();
  return deps.db.runInTransaction(async (trx) => {
    // Re-enabling a feed polls it at once rather than after a long backoff.
    const updated = await updatePaymentSourceEnabled(trx, row.id, { enabled: input.enabled, now, pollNow: input.enabled && row.type === 'feed' });
    await writeAudit(trx, { actor: input.actor, action: input.enabled ? 'source.enable' : 'source.disable', subjectType: 'payment_source', subjectId: row.id, now });
    return presentSource(updated);
  });
}
