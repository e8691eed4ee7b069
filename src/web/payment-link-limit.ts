// How many payment-link opens one client address may make per minute. The one place that knows which
// limiter does the counting (the API's own: in memory, or in Redis when REDIS_URL is set, shared by every
// instance), so a change of limiter touches only this file.
import type { Logger } from 'pino';
import type { Config } from '../settings/all.js';
import { MemoryRateLimiter } from '../http/rate-limit.js';
import { RedisRateLimiter } from '../http/redis-rate-limit.js';

export interface LinkLimit {
  /** Counts one open by this client; retryAfter (seconds) when it is over the limit. */
  take(clientKey: string): Promise<{ allowed: true } | { allowed: false; retryAfter: number }>;
  close(): Promise<void>;
}

/** PAYMENT_LINK_CREATES_PER_MINUTE per client address, or null when it is 0 (no limit). */
export function paymentLinkLimit(
  config: Config,
  now: () => number,
  logger: Logger,
  redisPrefix = 'qg:pl:',
): LinkLimit | null {
  const perMinute = config.paymentLinkCreatesPerMinute;
  if (perMinute === 0) return null;
  const redis = config.redisUrl ? new RedisRateLimiter(config.redisUrl, perMinute, logger, 60_000, redisPrefix) : null;
  const limiter = redis ?? new MemoryRateLimiter(perMinute, now);
  return {
    async take(clientKey) {
      const decision = await limiter.hit(clientKey);
      return decision.allowed ? { allowed: true } : { allowed: false, retryAfter: decision.resetSeconds };
    },
    close: async () => redis?.close(),
  };
}
