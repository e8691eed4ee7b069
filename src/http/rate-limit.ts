import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import { clockWindowStore } from './rate-limit-store.js';

export interface RateLimitSettings {
  perMinute: number;
  /** Shared by every instance when set; this process's memory otherwise. */
  redisUrl: string | null;
  /** Where the counters live in Redis; tests give their own so runs do not share windows. */
  redisPrefix?: string;
}

/** Counts one request of the authenticated key; throws `rate_limited` over the limit. */
export type RateCheck = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

// The prefix and fixed-window counter (INCR, PEXPIRE on the first hit) of the limiter this replaced, so
// instances of both versions share one budget per key during a rolling upgrade.
const REDIS_PREFIX = 'qg:rl:';

/**
 * Registers @fastify/rate-limit with a budget per API key (not per IP: one merchant's servers share
 * addresses with others, and a key is what pays). It is not global: the auth guard calls the returned
 * check once the key is known, so unauthenticated routes (checkout pages, health, metrics) are never
 * limited and both /api mounts share a key's budget.
 */
export async function registerRateLimit(app: FastifyInstance, settings: RateLimitSettings, now: () => number, logger: Logger | null): Promise<RateCheck> {
  const redis = settings.redisUrl === null ? null : connectRedis(settings.redisUrl, logger);
  if (redis !== null) app.addHook('onClose', async () => redis.disconnect());
  await app.register(rateLimit, {
    global: false,
    max: settings.perMinute,
    timeWindow: 60_000,
    // RateLimit-Limit, -Remaining and -Reset on every limited route, Retry-After on a 429.
    enableDraftSpec: true,
    // A limiter outage must not stop payments: when Redis cannot answer, the request goes through.
    skipOnError: true,
    keyGenerator: (request) => {
      if (!request.principal) throw new Error('rate limit checked before authentication');
      return request.principal.keyId;
    },
    errorResponseBuilder: (_request, context) =>
      new AppError('rate_limited', `more than ${context.max} requests a minute with this key`, {
        retryAfter: Math.max(1, Math.ceil(context.ttl / 1000)),
      }),
    ...(redis !== null ? { redis, nameSpace: settings.redisPrefix ?? REDIS_PREFIX } : { store: clockWindowStore(now) }),
  });
  return app.rateLimit() as unknown as RateCheck;
}

function connectRedis(url: string, logger: Logger | null): Redis {
  // Commands wait briefly for a (re)connection, then give up (and skipOnError lets the request through):
  // a request is never held for long.
  const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 1000, commandTimeout: 500 });
  redis.on('error', (err) => logger?.warn({ err: err.message }, 'redis rate limiter error'));
  return redis;
}
