import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
} from 'fastify';
import swagger from '@fastify/swagger';
import type { Logger } from 'pino';
import type { Socket } from 'node:net';
import { AppError } from '../domain/errors.js';
import { newRequestId } from '../domain/ids.js';
import { proxyTrustFunction } from '../domain/proxy-trust.js';
import type { Deps } from '../services/deps.js';
import { authenticate } from './auth.js';
import { handleError } from './errors.js';
import { errorBody, sendError } from '../wire/error-reply.js';
import { holdsNul, parseFormBody } from './params.js';
import { statusFor } from '../wire/error-status.js';
import { redactUrl } from './redact.js';
import { lazyChildLogger } from './request-logger.js';
import { MemoryRateLimiter, type RateLimiter } from './rate-limit.js';
import { RedisRateLimiter } from './redis-rate-limit.js';
import type { Config } from '../settings/all.js';
import type { RouteContext } from './routes/context.js';
import { transactionRoutes } from './routes/transactions.js';
import { cancelRoutes } from './routes/cancel.js';
import { refundRoutes } from './routes/refund.js';
import { simulateRoutes } from './routes/simulate.js';
import { qrImageRoutes } from './routes/qr-images.js';
import { systemRoutes } from './routes/system.js';
import { openApiWebhooks } from './openapi-webhooks.js';
import { registerDocsPage } from './docs-page.js';
import { closeOptions, drainOnClose, keepConnectionsOnClose } from './graceful-close.js';
import { timeoutOptions } from './timeouts.js';
import { metricsRoutes } from './metrics.js';
import { recordRoutes } from './route-table.js';
import { registerOverloadGuard, type ShedStats } from './overload.js';

export const API_VERSION = '1.0.0';

export interface AppOptions {
  deps: Deps;
  /** Overrides the limiter RATE_LIMIT_PER_MINUTE would build (a shared one, or null for none). */
  rateLimiter?: RateLimiter | null;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** The API's app as createApp leaves it: what mountApi needs to mount the API's routes on it. */
export interface HttpApp {
  app: FastifyInstance;
  /** Authenticates a request's API key (and notes it as used, for the key-use flusher to write). */
  guard: RouteContext['guard'];
  shedStats: ShedStats;
}

/**
 * The Fastify app with everything every route shares (request ids, limits, overload guard, error
 * answers, the OpenAPI document and its page) and no route of the API yet: the wiring (src/app.ts)
 * mounts the API with mountApi, then the web pages and the payment sources' routes.
 */
export async function createApp(options: AppOptions): Promise<HttpApp> {
  const { deps } = options;
  const { config } = deps;
  const fastifyOptions: FastifyServerOptions = {
    ...timeoutOptions(config),
    ...closeOptions,
    bodyLimit: config.bodyLimitBytes,
    // A function, never `true`: Fastify's `true` believes the leftmost X-Forwarded-For entry, which the
    // client writes (domain/proxy-trust.ts).
    trustProxy: proxyTrustFunction(config.trustProxy),
    // One access line per request is written in onResponse below; Fastify's own two lines would halve
    // throughput and would carry the raw URL.
    logController: new LogController({ disableRequestLogging: true }),
    // request.log is built on its first use: most requests only write the access line (request-logger.ts).
    childLoggerFactory: lazyChildLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : newRequestId();
    },
    frameworkErrors: (err, request, reply) => {
      // Fastify answers these before any hook runs, so the onSend headers are set here.
      reply.header('X-Request-Id', request.id).header('X-Api-Version', API_VERSION).header('Cache-Control', 'no-store');
      request.log.info(
        { method: request.method, url: redactUrl(request.url), status: 400, code: err.code },
        'request rejected',
      );
      sendError(
        reply,
        new AppError(
          'invalid_parameter',
          err.code === 'FST_ERR_BAD_URL' ? 'the request URL is malformed' : 'the request could not be routed',
        ),
      );
    },
    clientErrorHandler: writeClientError,
    // Fastify's default ('array') quietly unwraps one-element lists, so {"amount": [1000]} would pass as
    // 1000; a list where one value belongs must be an error, as a repeated query parameter is.
    ajv: { customOptions: { coerceTypes: true } },
  };
  const app = Fastify({
    ...fastifyOptions,
    loggerInstance: deps.logger as unknown as FastifyBaseLogger,
  });

  // Before any route: the tests that hold for every route (auth, isolation, hostile input) walk this table.
  recordRoutes(app);
  keepConnectionsOnClose(app.server);
  const drain = drainOnClose(app);

  app.decorateRequest('principal', null);
  // Bodies are JSON or form data; a text/plain body is a client mistake, answered with 415.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, parseFormBody(body as string));
  });

  // Callback-style hooks: an async hook costs a promise and a microtask per request for work that is
  // synchronous anyway.
  app.addHook('onRequest', (request, reply, done) => {
    // First, so that a request arriving while the server closes is refused before anything else runs.
    const refusal = drain.refusal(reply);
    if (refusal !== null) {
      done(refusal);
      return;
    }
    if (request.raw.url && request.raw.url.length > config.maxUrlLength) {
      done(new AppError('uri_too_long', `the URL is longer than ${config.maxUrlLength} characters`));
      return;
    }
    done();
  });
  // Second: past an OVERLOAD_* limit a request is refused before parsing, auth or any database work.
  const shedStats = await registerOverloadGuard(app, config);
  // After every body parser (the console's multipart one included, which runs in preValidation). A NUL
  // reaches the params and query only as %00 in the URL (Node refuses a raw one), so a request without
  // that and without a body (every GET create and status read) costs one substring search here.
  app.addHook('preHandler', (request, _reply, done) => {
    const urlMayHold = request.raw.url?.includes('%00') === true;
    if (
      (urlMayHold && (holdsNul(request.params) || holdsNul(request.query))) ||
      (request.body != null && holdsNul(request.body))
    ) {
      // Its statusCode too, for an error handler that reads only Fastify's (the SNAP routes' scope).
      done(
        Object.assign(new AppError('invalid_parameter', 'a NUL character is not allowed in a request'), {
          statusCode: 400,
        }),
      );
      return;
    }
    done();
  });
  app.addHook('onSend', (request, reply, _payload, done) => {
    reply.header('X-Request-Id', request.id);
    reply.header('X-Api-Version', API_VERSION);
    // No response may be cached unless its route says otherwise (the checkout page's hashed files):
    // one own-property lookup in the reply's header object.
    if (!reply.hasHeader('cache-control')) reply.header('Cache-Control', 'no-store');
    // Answered before its body has all arrived (a refusal, a redirect, a timeout): the connection goes
    // with the answer, so the rest of a slow body cannot hold it uncounted (in-flight.ts).
    if (request.receivingBody) reply.header('Connection', 'close');
    drain.markResponse(reply);
    done();
  });
  // Through the root logger with the id as its first field: the line a request's child would write,
  // without building the child.
  const accessLog = app.log;
  app.addHook('onResponse', (request, reply, done) => {
    accessLog.info(
      {
        reqId: request.id,
        method: request.method,
        url: redactUrl(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
    done();
  });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new AppError('not_found', `no route ${request.method} ${redactUrl(request.url).split('?')[0]}`)),
  );

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'qris-gateway',
        version: API_VERSION,
        description: 'Create dynamic QRIS codes of exact amounts and learn when they are paid.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // The paths begin with /api, so the server is the base the payers' links use (PUBLIC_BASE_URL). The
      // docs page puts its own origin first (docs-page.ts), so its "Try it out" reaches the gateway it came from.
      servers: [{ url: config.publicBaseUrl, description: 'This gateway (PUBLIC_BASE_URL)' }],
      components: {
        securitySchemes: {
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
          apiKeyQuery: { type: 'apiKey', in: 'query', name: 'apikey' },
          bearer: { type: 'http', scheme: 'bearer', description: 'The same key as `Authorization: Bearer sk_...`.' },
        },
      },
      security: [{ apiKeyHeader: [] }, { apiKeyQuery: [] }, { bearer: [] }],
      webhooks: openApiWebhooks,
    },
  });
  await registerDocsPage(app);

  const limiter =
    options.rateLimiter !== undefined ? options.rateLimiter : defaultLimiter(config, deps.now, deps.logger);
  if (limiter instanceof RedisRateLimiter) app.addHook('onClose', async () => limiter.close());
  const guard = authenticate(deps, limiter);
  return { app, guard, shedStats };
}

/** The API's routes (under /api and /api/api), /metrics and the system routes. */
export async function mountApi({ app, guard, shedStats }: HttpApp, deps: Deps): Promise<void> {
  const { config } = deps;
  // Clients join a base URL ending in /api with paths beginning /api, so both mounts answer.
  for (const [prefix, hide] of [
    ['/api', false],
    ['/api/api', true],
  ] as const) {
    await app.register(
      async (api) => {
        const ctx: RouteContext = { deps, hide, guard };
        await transactionRoutes(api, ctx);
        await cancelRoutes(api, ctx);
        await refundRoutes(api, ctx);
        await simulateRoutes(api, ctx);
        await qrImageRoutes(api, ctx);
        rejectOtherMethods(api, '/payment-gateway/cqris', ['GET', 'POST']);
        rejectOtherMethods(api, '/payment-gateway/cstatus', ['GET', 'HEAD']);
        rejectOtherMethods(api, '/payment-gateway/cancel', ['GET', 'POST']);
        rejectOtherMethods(api, '/payment-gateway/refund', ['POST']);
        rejectOtherMethods(api, '/payment-gateway/simulate', ['GET', 'POST']);
        rejectOtherMethods(api, '/payment-gateway/qr/:file', ['GET', 'HEAD']);
      },
      { prefix },
    );
  }
  metricsRoutes(app, config.metricsToken, deps, shedStats);
  await systemRoutes(app, deps);
}

function defaultLimiter(config: Config, now: () => number, logger: Logger): RateLimiter | null {
  if (config.rateLimitPerMinute === 0) return null;
  if (config.redisUrl) return new RedisRateLimiter(config.redisUrl, config.rateLimitPerMinute, logger);
  return new MemoryRateLimiter(config.rateLimitPerMinute, now);
}

function rejectOtherMethods(app: FastifyInstance, url: string, allowed: string[]): void {
  app.route({
    method: ALL_METHODS.filter((m) => !allowed.includes(m)),
    url,
    schema: { hide: true },
    handler: async (request, reply) => {
      reply.header('Allow', allowed.join(', '));
      return sendError(
        reply,
        new AppError(
          'method_not_allowed',
          `${request.method} is not allowed here; use ${allowed.filter((m) => m !== 'HEAD').join(' or ')}`,
        ),
      );
    },
  });
}

const STATUS_TEXT: Record<number, string> = {
  408: 'Request Timeout',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
};

// Requests Node cannot parse (oversized headers, garbage request lines) or that arrive too slowly never
// reach Fastify's routing; they still get the JSON envelope.
function writeClientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('headers_too_large', 'the request headers are too large')
      : err.code === 'HPE_URI_TOO_LONG'
        ? new AppError('uri_too_long', 'the URL is too long')
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new AppError('request_timeout', 'the request did not arrive in time')
          : new AppError('invalid_parameter', 'the request could not be parsed as HTTP');
  const requestId = newRequestId();
  const body = JSON.stringify(errorBody(error, requestId));
  const status = statusFor(error.code);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Cache-Control: no-store\r\nX-Api-Version: ${API_VERSION}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}
