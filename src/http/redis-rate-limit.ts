import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { MemoryRateLimiter, type RateDecision, type RateLimiter } from './rate-limit.js';

// One round trip per request: the script counts the hit and starts the window's expiry atomically, so
// several gateway instances share one limit per key without races.
const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

type HitCommand = Redis & { qgHit(key: string, windowMs: string): Promise<[number, number]> };

/**
 * A fixed window per key in Redis, shared by every instance. While Redis cannot be reached, each instance
 * holds the same limit in its own memory instead (the rule docs/operations.md states): not
 * closed, because a limiter outage must not stop payments; not wide open, because an outage is exactly
 * when a flood should still meet a limit. With N instances a key then gets at most N times its limit.
 * A request waits for Redis only while the first connection is being made; once Redis has answered or
 * failed, a request while it is not connected is counted in memory at once, never queued for a reconnection. The change of state is logged, once each way.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: HitCommand;
  private readonly fallback: MemoryRateLimiter;
  private degraded = false;
  /** Set at the first connection or the first failure: until then a request waits for the connection. */
  private settled = false;

  constructor(
    url: string,
    private readonly limit: number,
    private readonly logger: Logger,
    private readonly windowMs = 60_000,
    private readonly prefix = 'qg:rl:',
    now: () => number = Date.now,
  ) {
    this.fallback = new MemoryRateLimiter(limit, now, windowMs);
    // Commands wait briefly for a (re)connection, then give up: a request is never held for long.
    const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 1000, commandTimeout: 500 });
    // Every failed reconnection emits 'error' (every ~2 s while Redis is down): the listener keeps it from
    // being an unhandled event; the change of state itself is logged once each way by hit().
    redis.on('error', () => {});
    redis.once('ready', () => (this.settled = true));
    redis.once('error', () => (this.settled = true));
    redis.defineCommand('qgHit', { numberOfKeys: 1, lua: HIT });
    this.redis = redis as HitCommand;
  }

  async hit(key: string): Promise<RateDecision> {
    // Not connected (and not just starting): counted in memory at once, never queued for a reconnection.
    if (this.settled && this.redis.status !== 'ready')
      return this.holdLocally(key, new Error(`redis is ${this.redis.status}`));
    try {
      const [count, ttl] = await this.redis.qgHit(`${this.prefix}${key}`, String(this.windowMs));
      if (this.degraded) {
        this.degraded = false;
        this.logger.warn('redis is back: rate limits are shared by every instance again');
      }
      return {
        allowed: count <= this.limit,
        limit: this.limit,
        remaining: Math.max(0, this.limit - count),
        resetSeconds: Math.max(1, Math.ceil(ttl / 1000)),
      };
    } catch (err) {
      return this.holdLocally(key, err as Error);
    }
  }

  private holdLocally(key: string, err: Error): Promise<RateDecision> {
    if (!this.degraded) {
      this.degraded = true;
      this.logger.warn({ err: err.message }, 'redis unavailable: rate limits held per instance until it returns');
    }
    return this.fallback.hit(key);
  }

  /** True while Redis cannot be reached and this instance counts on its own. */
  get holdingLocally(): boolean {
    return this.degraded;
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
