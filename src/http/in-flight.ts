import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  preHandlerHookHandler,
} from 'fastify';
import type { Config } from '../settings/all.js';
import { AppError } from '../domain/errors.js';
import { watchBodyDeadlines } from './slow-bodies.js';

/** Requests refused since start, and the work in flight now, read by /metrics at scrape time. */
export interface ShedStats {
  shed: number;
  inFlight: { authenticated: number; anonymous: number } | null;
}

/**
 * Routes that answer whatever the load: a load balancer or an orchestrator must still see the process
 * alive (and the operator its metrics) while it sheds, or it would be restarted for being busy.
 */
export const EXEMPT: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

declare module 'fastify' {
  interface FastifyRequest {
    /** Its body is still arriving, counted as such (in-flight.ts): a share of its address's allowance, under the body deadline. */
    receivingBody: boolean;
  }
  interface FastifyContextConfig {
    /** A response held open for minutes (an event stream): counted by its own slots, not as work in flight. */
    longLived?: boolean;
  }
}

/**
 * How many requests of each kind are in progress, and how many unauthenticated ones each client address
 * holds: pure bookkeeping against the limits (0: no limit), no I/O.
 */
export class InFlightCounts {
  authenticated = 0;
  anonymous = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(
    private readonly maxAuthenticated: number,
    private readonly maxAnonymous: number,
    private readonly maxPerAddress: number,
  ) {}

  /** Whether `address` has used its whole share. */
  isFull(address: string): boolean {
    return this.maxPerAddress > 0 && (this.byAddress.get(address) ?? 0) >= this.maxPerAddress;
  }

  /** One more unauthenticated request of `address`, or false past its limit (nothing taken then). */
  takeAddress(address: string): boolean {
    const held = this.byAddress.get(address) ?? 0;
    if (this.maxPerAddress > 0 && held >= this.maxPerAddress) return false;
    this.byAddress.set(address, held + 1);
    return true;
  }

  giveAddress(address: string): void {
    const held = this.byAddress.get(address) ?? 0;
    // Deleted at zero: a map of every address ever seen would grow without bound.
    if (held <= 1) this.byAddress.delete(address);
    else this.byAddress.set(address, held - 1);
  }

  takeAnonymous(): boolean {
    if (this.maxAnonymous > 0 && this.anonymous >= this.maxAnonymous) return false;
    this.anonymous += 1;
    return true;
  }

  takeAuthenticated(): boolean {
    if (this.maxAuthenticated > 0 && this.authenticated >= this.maxAuthenticated) return false;
    this.authenticated += 1;
    return true;
  }
}

/**
 * Work in flight, counted so that nobody without a key can shed a paying merchant's calls (issue 35,
 * finding 1: 260 held-open anonymous bodies used to fill the one API count and shed every key's creates):
 * - an API request counts against OVERLOAD_MAX_IN_FLIGHT only once its key is checked and its body has
 *   arrived (the route's preHandler), until its response closes;
 * - a request without a key or a console session (public pages and forms, payment-source events) counts
 *   in a pool of its own, OVERLOAD_MAX_ANONYMOUS_IN_FLIGHT, from its body's arrival to its response's close;
 * - a client address may hold OVERLOAD_MAX_ANONYMOUS_PER_ADDRESS unauthenticated requests at once (429
 *   past it): slow bodies (still arriving at a check, whatever the route) and the anonymous pool's work;
 * - a body must arrive within HTTP_BODY_TIMEOUT_MS of the headers (slow-bodies.ts).
 * So a held-open socket costs its sender a slice of its own address's allowance, for seconds, and
 * nothing of anybody else's.
 */
export function limitInFlight(app: FastifyInstance, config: Config, stats: ShedStats): InFlightCounts {
  const counts = new InFlightCounts(
    config.overloadMaxInFlight,
    config.overloadMaxAnonymousInFlight,
    config.overloadMaxAnonymousPerAddress,
  );
  const retryAfter = config.overloadRetryAfterSeconds;
  const overloaded = new AppError('overloaded', 'the server is overloaded; retry after the time in Retry-After', {
    retryAfter,
  });
  const tooMany = new AppError(
    'rate_limited',
    `more than ${config.overloadMaxAnonymousPerAddress} unauthenticated requests in progress from your address; retry after the time in Retry-After`,
    { retryAfter },
  );
  const deadlines = watchBodyDeadlines(app, config.httpBodyTimeoutMs, counts, { tooMany, stats });
  app.decorateRequest('receivingBody', false);

  function bodyArrived(request: FastifyRequest): void {
    if (!request.receivingBody) return;
    request.receivingBody = false;
    deadlines.arrived(request);
  }
  // One shared listener for the hot path (every create and status read): no closure per request.
  const authenticatedDone = () => {
    counts.authenticated -= 1;
  };
  function anonymousDone(request: FastifyRequest): void {
    counts.anonymous -= 1;
    counts.giveAddress(request.ip);
  }
  function refuse(reply: FastifyReply, error: AppError): AppError {
    stats.shed += 1;
    // A body nobody will read: the connection goes once the answer is sent, not when the rest arrives.
    reply.header('Connection', 'close');
    return error;
  }

  // Every request with a body, on every route and the 404 handler, from its headers until its body has
  // arrived; one still arriving at the next check takes a share of its address's (slow-bodies.ts). A GET
  // (no length, no chunks) costs two header reads here.
  const receiving: onRequestHookHandler = (request, reply, done) => {
    const headers = request.headers;
    const length = headers['content-length'];
    if ((length === undefined || length === '0') && headers['transfer-encoding'] === undefined) return done();
    // The health and metrics routes are never refused, whatever they are sent.
    if (EXEMPT.has(request.url.split('?', 1)[0] ?? '')) return done();
    // An address that has used its whole share is refused at once, without waiting for a check.
    const address = request.ip;
    if (counts.isFull(address)) return done(refuse(reply, tooMany));
    request.receivingBody = true;
    deadlines.waiting(request, reply, address);
    // Bytes stop arriving when the body has been read to the end (the request's 'close') or when the
    // response is done: an answer sent before the whole body is sent with `Connection: close` (app.ts's
    // onSend), so its connection goes with it.
    const arrived = () => bodyArrived(request);
    request.raw.on('close', arrived);
    reply.raw.on('close', arrived);
    done();
  };
  app.addHook('onRequest', receiving);

  // From here the body has arrived (every body parser has run, the console's multipart one included) and
  // the key, where the route takes one, has been checked (its guard runs in preValidation).
  const admit: preHandlerHookHandler = (request, reply, done) => {
    bodyArrived(request);
    if (request.principal !== null) {
      if (!counts.takeAuthenticated()) return done(refuse(reply, overloaded));
      // 'close' comes once per response, whether it was sent or the client went away.
      reply.raw.on('close', authenticatedDone);
      return done();
    }
    if ((request as { viewer?: unknown }).viewer) {
      // A console user's pages: the console's own sessions and throttles bound them.
      return done();
    }
    if (!counts.takeAddress(request.ip)) return done(refuse(reply, tooMany));
    if (!counts.takeAnonymous()) {
      counts.giveAddress(request.ip);
      return done(refuse(reply, overloaded));
    }
    reply.raw.on('close', () => anonymousDone(request));
    done();
  };
  // A stream's body (if it was sent one) has arrived too; the stream itself is counted by its own slots.
  const settle: preHandlerHookHandler = (request, _reply, done) => {
    bodyArrived(request);
    done();
  };
  // Each route chooses once, as it is added (its HEAD twin too), with a hook of its own; asking every
  // request for its route (request.routeOptions) would build an object per read.
  app.addHook('onRoute', (route) => {
    const hook = EXEMPT.has(route.url) || route.config?.longLived === true ? settle : admit;
    route.preHandler = route.preHandler === undefined ? hook : [hook, ...[route.preHandler].flat()];
  });
  return counts;
}
