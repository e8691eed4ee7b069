import type { Deps } from '../../services/deps.js';
import type { CacheSlot } from '../../services/state.js';
import type { SnapSource } from './config.js';

/** A B2B access token of one source, as the client keeps it (client.ts). */
export interface CachedToken {
  key: string;
  token: string;
  /** Wall-clock ms after which the token is not used any more. */
  refreshAt: number;
}

/** What SNAP keeps between requests, one set per gateway (deps.state), so two gateways share nothing. */
export interface SnapCaches {
  /** Parsed sources (keys loaded) by source id, with the row version they were parsed from (sources.ts). */
  parsed: Map<string, { version: string; source: SnapSource }>;
  /** A merchant's enabled sources and when (deps.now) they were read (sources.ts). */
  byMerchant: Map<string, { at: number; sources: SnapSource[] }>;
  /** Tokens by source id: they live ~15 minutes and every instance may hold its own (client.ts). */
  tokens: Map<string, CachedToken>;
  /** Token requests in flight by source id, which concurrent callers share (client.ts). */
  refreshing: Map<string, Promise<CachedToken>>;
}

const SNAP_CACHES: CacheSlot<SnapCaches> = Object.freeze({
  make: () => ({ parsed: new Map(), byMerchant: new Map(), tokens: new Map(), refreshing: new Map() }),
});

export function snapCaches(deps: Deps): SnapCaches {
  return deps.state.kinds.get(SNAP_CACHES);
}
