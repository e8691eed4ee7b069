// Finding a merchant's SNAP source. cqris asks on every create, so answers are cached briefly; parsed
// sources (keys loaded) are cached by row version so a config change is picked up on the next read.
// Both caches are the gateway's (caches.ts, in deps.state), timed by deps.now.
import type { Deps } from '../../services/deps.js';
import {
  allEnabledSnapSources,
  enabledSnapSourceById,
  enabledSnapSourcesOfMerchant,
  type SnapSourceRow,
} from '../../storage/queries/sources.js';
import type { Mode } from '../../storage/schema.js';
import { snapCaches } from './caches.js';
import { loadSnapSource, type SnapSource } from './config.js';

// A source added or disabled by another process (the CLI) takes effect within this time.
const MERCHANT_TTL_MS = 5000;

function load(deps: Deps, row: SnapSourceRow): SnapSource {
  const { parsed } = snapCaches(deps);
  const version = `${row.updated_at}:${row.config.length}`;
  const hit = parsed.get(row.id);
  if (hit && hit.version === version) return hit.source;
  let source: SnapSource;
  try {
    source = loadSnapSource(row.id, row.merchant_id, row.config);
  } catch (err) {
    // Not an AppError: a stored config that no longer validates is our fault, not the caller's (500).
    throw new Error(
      `payment source ${row.id}: stored SNAP config is invalid: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  parsed.set(row.id, { version, source });
  return source;
}

/** Forget cached lookups (after this process adds or changes a source). */
export function forgetSnapSources(deps: Deps, merchantId?: string): void {
  const { byMerchant } = snapCaches(deps);
  if (merchantId === undefined) byMerchant.clear();
  else byMerchant.delete(merchantId);
}

/** The SNAP source issuing a merchant's codes for this mode (the newest enabled one), or null. */
export async function snapSourceFor(deps: Deps, merchantId: string, mode: Mode): Promise<SnapSource | null> {
  const { byMerchant } = snapCaches(deps);
  const now = deps.now();
  let entry = byMerchant.get(merchantId);
  if (!entry || now - entry.at > MERCHANT_TTL_MS) {
    const rows = await enabledSnapSourcesOfMerchant(deps.db, merchantId);
    entry = { at: now, sources: rows.map((row) => load(deps, row)) };
    byMerchant.set(merchantId, entry);
  }
  return entry.sources.find((s) => s.config.mode === null || s.config.mode === mode) ?? null;
}

/** One source by id, if it is an enabled SNAP source. */
export async function snapSourceById(deps: Deps, id: string): Promise<SnapSource | null> {
  const row = await enabledSnapSourceById(deps.db, id);
  return row ? load(deps, row) : null;
}

/** Every enabled SNAP source (the notify route picks among them by path and signature). */
export async function allSnapSources(deps: Deps): Promise<SnapSource[]> {
  const rows = await allEnabledSnapSources(deps.db);
  // One broken row must not stop every other merchant's notifications.
  return rows.flatMap((row) => {
    try {
      return [load(deps, row)];
    } catch {
      return [];
    }
  });
}
