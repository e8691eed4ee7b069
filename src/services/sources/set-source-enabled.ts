import type { Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { isSourceId } from '../../domain/ids.js';
import { updatePaymentSourceEnabled, paymentSourceInScope } from '../../storage/queries/sources.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import type { SourceView } from './source-view.js';

/**
 * Turns a source off (its webhook answers 404, its feed is not polled) or on again; audited.
 * `merchants` limits the sources that may be changed (a console user's); another merchant's source is
 * not found, exactly as an unknown or malformed id.
 */
export async function setSourceEnabled(
  deps: Deps,
  input: { id: string; enabled: boolean; actor: Actor; merchants?: readonly string[] | null },
): Promise<SourceView> {
  const row = isSourceId(input.id) ? await paymentSourceInScope(deps.db, input.id, input.merchants ?? null) : undefined;
  if (!row) throw new AppError('source_not_found', `no payment source ${input.id}`, { param: 'id' });
  const now = deps.now();
  const view = await deps.db.runInTransaction(async (trx) => {
    // Re-enabling a polled source (a feed) polls it at once rather than after a long backoff.
    const pollNow = input.enabled && deps.sources.isPolled(row.type);
    const updated = await updatePaymentSourceEnabled(trx, row.id, { enabled: input.enabled, now, pollNow });
    await writeAudit(trx, {
      actor: input.actor,
      action: input.enabled ? 'source.enable' : 'source.disable',
      subjectType: 'payment_source',
      subjectId: row.id,
      now,
    });
    return deps.sources.present(updated);
  });
  // Inbound posts read the source as it is now (a disabled source answers 404 at once). No post can use
  // the cached row between the commit and this line: only microtasks run there, never an I/O callback.
  // A post that read the old row before the commit is not cached (SourceCache.set drops what was read
  // before a clear).
  deps.state.sources.clear(performance.now());
  return view;
}
