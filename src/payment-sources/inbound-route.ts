import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AppError, isAppError } from '../domain/errors.js';
import type { Deps } from '../services/deps.js';
import { errorResponses } from '../wire/error-schemas.js';
import { sendError } from '../wire/error-reply.js';
import { findSource, parseJsonObject } from './common.js';
import type { InboundAnswer, SourceKind } from './kind.js';
import type { PaymentSourcesTable } from '../storage/schema.js';

const URL_PATH = '/payment-sources/:source/events';
const OTHER_METHODS = ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * POST /api/payment-sources/{source}/events (and under /api/api): the one address every inbound source
 * kind is posted to. It finds the source (enabled, of a kind that receives posts; anything else is
 * source_not_found, all alike) and hands the post to its kind (SourceKind.receive), which checks the sender
 * and answers as that sender expects. The body is kept as raw bytes by a content-type parser scoped to this
 * plugin: a signature covers exactly what the sender sent, and nothing in it is read before the kind has
 * checked it.
 */
export async function inboundEventRoutes(
  app: FastifyInstance,
  deps: Deps,
  kinds: readonly SourceKind[],
): Promise<void> {
  const receivers = new Map(kinds.filter((kind) => kind.receive).map((kind) => [kind.type, kind] as const));
  for (const [prefix, hide] of [
    ['/api', false],
    ['/api/api', true],
  ] as const) {
    await app.register(
      async (scope) => {
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
        scope.post(URL_PATH, {
          schema: {
            operationId: 'receiveSourceEvent',
            tags: ['payment sources'],
            summary: 'Report payments from an inbound payment source',
            description: [
              'Each kind of source is posted to in its own sender’s format and checks its own authentication;',
              'an unauthenticated post is 401 `invalid_signature` and stores nothing.',
              ...[...receivers.values()].map((kind) => `- **${kind.label.en}** (\`${kind.type}\`).`),
              'A signed webhook: body `{"id", "amount", "paid_at", "reference"?, "payer"?, "issuer"?}`, header',
              '`X-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, within 5 minutes of the server clock;',
              'answered `{"success": true, "data": {"payment_id", "status", "trxid", "reason"}}`.',
            ].join('\n'),
            hide,
            security: [],
            params: Type.Object({ source: Type.String() }),
            // The signed webhook's header; other kinds read the headers their senders send.
            headers: Type.Object({ 'x-signature': Type.Optional(Type.String()) }),
            response: { 200: Type.Object({}, { additionalProperties: true }), ...errorResponses },
          },
          handler: async (request, reply) => {
            const answer = await receive(deps, receivers, request);
            return reply.code(answer.status).send(answer.body);
          },
        });
        scope.route({
          method: [...OTHER_METHODS],
          url: URL_PATH,
          schema: { hide: true },
          handler: async (_request, reply) => {
            reply.header('Allow', 'POST');
            return sendError(reply, new AppError('method_not_allowed', 'use POST'));
          },
        });
      },
      { prefix },
    );
  }
}

/** What a kind answers a post whose source or credentials it does not accept. */
const refusal = (err: unknown): boolean =>
  isAppError(err) && (err.code === 'source_not_found' || err.code === 'invalid_signature');

async function receive(
  deps: Deps,
  receivers: ReadonlyMap<string, SourceKind>,
  request: FastifyRequest,
): Promise<InboundAnswer> {
  const { source: sourceId } = request.params as { source: string };
  const cache = deps.state.sources;
  const startedAt = performance.now();
  const cached = cache.get(sourceId, startedAt);
  if (cached) {
    try {
      return await receiveFrom(deps, receivers, request, cached);
    } catch (err) {
      if (!refusal(err)) throw err;
      // Refused by a row up to SOURCE_CACHE_MS old: asked again of the row as stored, unless that is the
      // same row (then the refusal stands, and the kind has logged it once).
      cache.forget(sourceId);
      const stored = await findSource(deps, sourceId);
      if (stored?.updated_at === cached.updated_at && stored.enabled === cached.enabled) throw err;
      if (stored) cache.set(stored, startedAt);
      return receiveFrom(deps, receivers, request, stored);
    }
  }
  const row = await findSource(deps, sourceId);
  if (row) cache.set(row, startedAt);
  return receiveFrom(deps, receivers, request, row);
}

async function receiveFrom(
  deps: Deps,
  receivers: ReadonlyMap<string, SourceKind>,
  request: FastifyRequest,
  row: PaymentSourcesTable | null,
): Promise<InboundAnswer> {
  const kind = row ? receivers.get(row.type) : undefined;
  if (!row || !kind?.receive || row.enabled !== 1) throw new AppError('source_not_found', 'no such payment source');
  return kind.receive(deps, {
    source: row,
    config: parseJsonObject(row.config),
    body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
    headers: request.headers,
    query: (request.query ?? {}) as Record<string, unknown>,
    log: request.log,
  });
}
