import type { PaymentSourcesTable } from '../../storage/schema.js';

/**
 * How long an enabled payment source's row is reused by the inbound route (payment-sources/
 * inbound-route.ts), which otherwise reads it for every post: in a payment storm that read was a fifth of
 * PostgreSQL's round trips. A change this process makes (a source turned off or on, its credentials
 * rotated, its merchant's account closed) clears the cache at once; one made by another process (the CLI,
 * another instance) is seen here within this long. New credentials are never refused meanwhile: a post the
 * cached row refuses is checked again against the row as stored.
 */
export const SOURCE_CACHE_MS = 5000;
const SOURCE_CACHE_MAX = 10_000;

/**
 * Enabled sources' rows as last read, by id, with the time they were read (performance.now()). Refusals
 * (an unknown or disabled source) are never cached. One per ServiceState (services/state.ts).
 */
export class SourceCache {
  readonly #entries = new Map<string, { row: PaymentSourcesTable; until: number }>();
  #clearedAt = Number.NEGATIVE_INFINITY;

  get(id: string, now: number): PaymentSourcesTable | undefined {
    const hit = this.#entries.get(id);
    return hit && hit.until > now ? hit.row : undefined;
  }

  /** Remembers an enabled source read at `startedAt`, unless a change of this process ran meanwhile. */
  set(row: PaymentSourcesTable, startedAt: number): void {
    if (row.enabled !== 1 || startedAt < this.#clearedAt) return;
    if (this.#entries.size >= SOURCE_CACHE_MAX) this.#entries.clear();
    this.#entries.set(row.id, { row, until: startedAt + SOURCE_CACHE_MS });
  }

  forget(id: string): void {
    this.#entries.delete(id);
  }

  /** Changes to sources are rare: forgetting every row is simplest and exact. */
  clear(now: number): void {
    this.#entries.clear();
    this.#clearedAt = now;
  }
}
