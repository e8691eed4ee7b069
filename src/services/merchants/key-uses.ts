import { markApiKeysUsed } from '../../storage/queries/api-keys.js';
import type { Deps } from '../deps.js';

/** How often the keys noted as used are written to api_keys.last_used_at: "last used" is to the minute. */
export const KEY_USE_FLUSH_MS = 60_000;

/**
 * Writes the keys used since the last flush (deps.state.keyUses) as used now, in one unit of work, and
 * returns how many. The set is taken first, so uses noted while the write runs wait for the next flush;
 * if the write fails they are noted again and tried next time.
 */
export async function flushKeyUses(deps: Deps): Promise<number> {
  const used = deps.state.keyUses;
  if (used.size === 0) return 0;
  const ids = [...used];
  used.clear();
  try {
    const now = deps.now();
    await deps.db.runInTransaction((trx) => markApiKeysUsed(trx, ids, now));
  } catch (err) {
    for (const id of ids) used.add(id);
    throw err;
  }
  return ids.length;
}
