import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import { redactUrl } from './redact.js';

export interface BodyDeadlines {
  /** `request`'s body is arriving from now on (from `address`). */
  waiting(request: FastifyRequest, reply: FastifyReply, address: string): void;
  /** Its body has arrived (or its connection has gone). */
  arrived(request: FastifyRequest): void;
}

/** Each client address's share of unauthenticated requests (in-flight.ts's InFlightCounts). */
export interface AddressShares {
  takeAddress(address: string): boolean;
  giveAddress(address: string): void;
}

interface Waiting {
  reply: FastifyReply;
  address: string;
  since: number;
  /** Counted in its address's share: it was still arriving at a check. */
  slow: boolean;
}

/**
 * Bodies that arrive slowly. A body that has not all arrived by the next check (every quarter of
 * HTTP_BODY_TIMEOUT_MS, at most every second) is slow: it takes a share of its address's allowance
 * (OVERLOAD_MAX_ANONYMOUS_PER_ADDRESS), or, its address having none left, is answered 429 `rate_limited`
 * there and then, its connection closed. A body not all arrived HTTP_BODY_TIMEOUT_MS after its headers is
 * answered 408 `request_timeout`, its connection closed. Node's own HTTP_REQUEST_TIMEOUT_MS bounds the
 * whole request too, but at 30 s it let one client hold hundreds of sockets by sending a few bytes of body
 * to each (issue 35, finding 1). A logged-in console user (a photo upload from a phone) is neither counted
 * nor cut here: HTTP_REQUEST_TIMEOUT_MS is its limit.
 *
 * Bodies that arrive at once, which is every ordinary one (a burst of a merchant's hundreds of creates
 * from one address included), are never counted: they are gone from the map before a check looks. One
 * timer for all, and usually an empty map for it to look at.
 */
export function watchBodyDeadlines(
  app: FastifyInstance,
  timeoutMs: number,
  shares: AddressShares,
  refusal: { tooMany: AppError; stats: { shed: number } },
): BodyDeadlines {
  const bodies = new Map<FastifyRequest, Waiting>();
  const check = setInterval(
    () => {
      if (bodies.size === 0) return;
      const now = performance.now();
      // In arrival order: an address's earlier requests take its share first.
      for (const [request, waiting] of bodies) {
        if ((request as { viewer?: unknown }).viewer) continue;
        if (now - waiting.since >= timeoutMs) {
          forget(request, waiting);
          cut(
            request,
            waiting.reply,
            new AppError('request_timeout', `the request body did not arrive within ${timeoutMs} ms`),
          );
        } else if (!waiting.slow) {
          if (shares.takeAddress(waiting.address)) {
            waiting.slow = true;
          } else {
            forget(request, waiting);
            refusal.stats.shed += 1;
            cut(request, waiting.reply, refusal.tooMany);
          }
        }
      }
    },
    Math.max(25, Math.min(1000, Math.floor(timeoutMs / 4))),
  );
  check.unref();
  app.addHook('onClose', (_app, done) => {
    clearInterval(check);
    done();
  });

  function forget(request: FastifyRequest, waiting: Waiting): void {
    bodies.delete(request);
    if (waiting.slow) shares.giveAddress(waiting.address);
  }

  function cut(request: FastifyRequest, reply: FastifyReply, error: AppError): void {
    app.log.info(
      { reqId: request.id, method: request.method, url: redactUrl(request.url), code: error.code },
      'slow request body cut',
    );
    const raw = request.raw;
    // Still being read by a body parser (its 'error' listener waits): the parser fails with the error, and
    // the route's error handler answers it (the JSON envelope, or a page's own), then closes the connection.
    if (!reply.sent && !reply.raw.headersSent && raw.listenerCount('error') > 0) {
      reply.header('Connection', 'close');
      raw.emit('error', error);
      return;
    }
    // Answered already (the rest of the body was being discarded), or nobody reads it: nothing to say.
    raw.socket?.destroy();
  }

  return {
    waiting(request, reply, address) {
      bodies.set(request, { reply, address, since: performance.now(), slow: false });
    },
    arrived(request) {
      const waiting = bodies.get(request);
      if (waiting) forget(request, waiting);
    },
  };
}
