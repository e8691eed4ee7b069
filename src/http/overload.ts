import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../domain/errors.js';

// Routes that answer whatever the load: a load balancer or an orchestrator must still see the process
// alive (and the operator its metrics) while it sheds, or it would be restarted for being busy.
const EXEMPT = new Set(['/healthz', '/readyz', '/metrics']);

/** Requests refused since start, read by /metrics at scrape time. */
export interface ShedStats {
  shed: number;
}

/**
 * Load shedding through @fastify/under-pressure: past one of the OVERLOAD_* limits every request but the
 * exempt ones is answered 503 `overloaded` with Retry-After in its onRequest hook, before parsing, auth or
 * any database work, and the process recovers by itself once a sample is under the limits again. Pages
 * get the same JSON error: a shed answer must cost nothing, and browsers retry a reload.
 */
export async function registerOverloadGuard(app: FastifyInstance, config: Config): Promise<ShedStats> {
  const stats: ShedStats = { shed: 0 };
  const error = new AppError('overloaded', 'the server is overloaded; retry after the time in Retry-After', {
    retryAfter: config.overloadRetryAfterSeconds,
  });
  if (config.overloadMaxInFlight > 0) limitInFlight(app, config.overloadMaxInFlight, error, stats);
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

/**
 * OVERLOAD_MAX_IN_FLIGHT: past this many API requests in progress, a new one is refused at once. A
 * saturated server queues work inside itself (creates waiting for their group commit, reads for a
 * connection) and every queued request makes each later one wait longer; the limit keeps that queue, and
 * so the latency of the requests it accepts, bounded. Counted from onRequest to the response's 'close',
 * which comes exactly once whether the answer was sent or the client went away.
 */
function limitInFlight(app: FastifyInstance, max: number, error: AppError, stats: ShedStats): void {
  let inFlight = 0;
  const done = () => {
    inFlight -= 1;
  };
  const admit: onRequestHookHandler = (_request, reply, next) => {
    if (inFlight >= max) {
      stats.shed += 1;
      return next(error);
    }
    inFlight += 1;
    // 'close' is emitted once per response, so a plain listener serves: `once` would wrap it anew for
    // every request.
    reply.raw.on('close', done);
    next();
  };
  // Only API routes are counted, by the route a request matched, never the raw URL, which a client shapes
  // (`//api/...`, encoded letters). Each route is chosen once, as it is added (its HEAD twin too), with a
  // hook of its own; asking every request for its route (request.routeOptions) builds an object per read.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) return;
    route.onRequest = route.onRequest === undefined ? admit : [admit, ...[route.onRequest].flat()];
  });
}
