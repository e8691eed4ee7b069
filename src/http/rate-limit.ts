export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
}

export interface RateLimiter {
  hit(key: string): Promise<RateDecision>;
}

/**
 * A fixed one-minute window per key, in this process's memory. Several instances need a shared
 * limiter (Redis); this one is the default for a single instance.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastPrune = 0;

  constructor(
    private readonly limit: number,
    private readonly now: () => number = Date.now,
    private readonly windowMs = 60_000,
  ) {}

  async hit(key: string): Promise<RateDecision> {
    const now = this.now();
    const start = now - (now % this.windowMs);
    this.prune(start);
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    return {
      allowed: window.count <= this.limit,
      limit: this.limit,
      remaining: Math.max(0, this.limit - window.count),
      resetSeconds: Math.max(1, Math.ceil((start + this.windowMs - now) / 1000)),
    };
  }

  private prune(currentStart: number): void {
    if (this.lastPrune === currentStart) return;
    this.lastPrune = currentStart;
    for (const [key, w] of this.windows) if (w.start < currentStart) this.windows.delete(key);
  }
}
