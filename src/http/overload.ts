import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../settings/all.js';
import { AppError } from '../domain/errors.js';
import { EXEMPT, limitInFlight, type ShedStats } from './in-flight.js';

export type { ShedStats } from './in-flight.js';

/**
 * Load shedding through @fastify/under-pressure: past one of the OVERLOAD_* limits every request but the
 * exempt ones is answered 503 `overloaded` with Retry-After in its onRequest hook, before parsing, auth or
 * any database work, and the process recovers by itself once a sample is under the limits again. Pages
 * get the same JSON error: a shed answer must cost nothing, and browsers retry a reload.
 */
export async function registerOverloadGuard(app: FastifyInstance, config: Config): Promise<ShedStats> {
  const stats: ShedStats = { shed: 0, inFlight: null };
  const error = new AppError('overloaded', 'the server is overloaded; retry after the time in Retry-After', {
    retryAfter: config.overloadRetryAfterSeconds,
  });
  // Work in flight, counted apart for keys and for everyone else (in-flight.ts); its limits are never
  // all off, since the body deadline lives there too.
  stats.inFlight = limitInFlight(app, config, stats);
  // With every sampled limit off nothing can be shed by under-pressure, yet it would still keep an
  // event-loop delay histogram (a libuv timer every 10 ms) and a sampler that walks and clears it every
  // sample interval: measured under callgrind (scripts/ab-instructions.mjs, which turns the limits off)
  // that was about 60,000 instructions per create. Not registering it leaves requests exactly as they were.
  if (
    config.overloadMaxEventLoopDelayMs === 0 &&
    config.overloadMaxHeapUsedBytes === 0 &&
    config.overloadMaxRssBytes === 0 &&
    config.overloadMaxEventLoopUtilization === 0
  ) {
    app.decorate('isUnderPressure', () => false);
    return stats;
  }
  await app.register(underPressure, {
    maxEventLoopDelay: config.overloadMaxEventLoopDelayMs,
    maxHeapUsedBytes: config.overloadMaxHeapUsedBytes,
    maxRssBytes: config.overloadMaxRssBytes,
    maxEventLoopUtilization: config.overloadMaxEventLoopUtilization / 1000,
    sampleInterval: config.overloadSampleIntervalMs,
    // Called only while a limit is passed. Returning nothing lets the request through; a rejected promise
    // goes to the app's error handler, which writes the envelope and Retry-After.
    pressureHandler: (request: FastifyRequest) => {
      if (EXEMPT.has(request.routeOptions.url ?? '')) return undefined;
      stats.shed += 1;
      return Promise.reject(error);
    },
  });
  return stats;
}
