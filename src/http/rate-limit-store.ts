import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';

/**
 * The in-memory store for @fastify/rate-limit when there is no Redis: a fixed window per key, aligned to
 * the minute of `now` (the services' clock). The plugin's own LocalStore reads Date.now() and starts
 * each key's window at its first hit; this one keeps the gateway's contract, a window per clock minute
 * that tests can move.
 */
export function clockWindowStore(now: () => number): FastifyRateLimitStoreCtor {
  return class ClockWindowStore implements FastifyRateLimitStore {
    private readonly windows = new Map<string, { start: number; count: number }>();
    private lastPrune = 0;

    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      const t = now();
      const start = t - (t % timeWindow);
      this.prune(start);
      let window = this.windows.get(key);
      if (!window || window.start !== start) {
        window = { start, count: 0 };
        this.windows.set(key, window);
      }
      window.count += 1;
      callback(null, { current: window.count, ttl: start + timeWindow - t });
    }

    // The plugin asks for a child per route only for routes with a limit of their own; the gateway has
    // none, and a key's budget is shared by every route anyway.
    child(): FastifyRateLimitStore {
      return this;
    }

    /** Drops the windows of earlier minutes, once per minute, so idle keys do not pile up. */
    private prune(currentStart: number): void {
      if (this.lastPrune === currentStart) return;
      this.lastPrune = currentStart;
      for (const [key, w] of this.windows) if (w.start < currentStart) this.windows.delete(key);
    }
  };
}
