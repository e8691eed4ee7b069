import type { Actor } from '../../domain/actor.js';
import type { Mode } from '../../domain/records.js';

/** Who a presented API key stands for. */
export interface Principal {
  keyId: string;
  merchantId: string;
  mode: Mode;
  /** Who the audit log names for what this key does: made once, when the key is found. */
  actor: Actor;
}

/**
 * How long a successful key lookup is reused by the HTTP guard. A key revoked by this process stops
 * working at once (revokeApiKey clears the cache); one revoked by another process (the CLI, another
 * instance) keeps working here for at most this long.
 */
export const PRINCIPAL_CACHE_MS = 5000;
const PRINCIPAL_CACHE_MAX = 10_000;

/**
 * Successful key lookups of this process, keyed by the key's hash so no secret is held. Failures are
 * never cached. One per ServiceState (services/state.ts).
 */
export class PrincipalCache {
  private entries = new Map<string, { principal: Principal; until: number }>();
  private clearedAt = Number.NEGATIVE_INFINITY;

  get(hash: string, now: number): Principal | undefined {
    const hit = this.entries.get(hash);
    return hit && hit.until > now ? hit.principal : undefined;
  }

  /** Remembers a lookup that started at `startedAt`, unless a revoke ran while it was in flight. */
  set(hash: string, principal: Principal, startedAt: number): void {
    if (startedAt < this.clearedAt) return;
    if (this.entries.size >= PRINCIPAL_CACHE_MAX) this.entries.clear();
    this.entries.set(hash, { principal, until: startedAt + PRINCIPAL_CACHE_MS });
  }

  /** Revocations are rare: forgetting every cached principal is simplest and exact. */
  clear(now: number): void {
    this.entries.clear();
    this.clearedAt = now;
  }
}
