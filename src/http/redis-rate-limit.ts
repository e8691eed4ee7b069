import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RateDecision, RateLimiter } from './rate-limit.js';

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
 * A fixed window per key in Redis. If Redis cannot be reached the request is let through and the
 * failure logged: a limiter outage must not stop payments.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: HitCommand;

  constructor(
    url: string,
    private readonly limit: number,
    private readonly logger: Logger,
    private readonly windowMs = 60_000,
    private readonly prefix = 'qg:rl:',
  ) {
    // Commands wait briefly for a (re)connection, then give up: a request is never held for long.
    const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 1000, commandTimeout: 500 });
    redis.on('error', (err) => this.logger.warn({ err: err.message }, 'redis rate limiter error'));
    redis.defineCommand('qgHit', { numberOfKeys: 1, lua: HIT });
    this.redis = redis as HitCommand;
  }

  async hit(key: string): Promise<RateDecision> {
    try {
      const [count, ttl] = await this.redis.qgHit(`${this.prefix}${key}`, String(this.windowMs));
      return {
        allowed: count <= this.limit,
        limit: this.limit,
        remaining: Math.max(0, this.limit - count),
        resetSeconds: Math.max(1, Math.ceil(ttl / 1000)),
      };
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'rate limit check skipped: redis unavailable');
      return { allowed: true, limit: this.limit, remaining: this.limit, resetSeconds: Math.ceil(this.windowMs / 1000) };
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
