import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import { authenticateApiKeyCached } from '../services/merchants/authenticate-api-key.js';
import type { Principal } from '../services/merchants/principal-cache.js';
import type { Deps } from '../services/deps.js';
import type { RateLimiter } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

function single(value: unknown, what: string): string | null {
  // The usual case, one value, without the array and Set below.
  if (typeof value === 'string') return value === '' ? null : value;
  if (value === undefined || value === null) return null;
  const values = Array.isArray(value) ? value : [value];
  const distinct = new Set(values.map(String));
  if (distinct.size > 1)
    throw new AppError('api_key_mismatch', `${what} was given more than once with different values`);
  const only = [...distinct][0];
  return only === undefined || only === '' ? null : only;
}

const BEARER = /^Bearer\s+/i;

/** The key from the `apikey` query parameter, the `X-Api-Key` header or a Bearer token; all given must agree. */
export function presentedKey(request: FastifyRequest): string | null {
  const fromQuery = single((request.query as Record<string, unknown> | undefined)?.apikey, 'apikey');
  const fromHeader = single(request.headers['x-api-key'], 'X-Api-Key');
  const auth = request.headers.authorization;
  const fromBearer = typeof auth === 'string' && BEARER.test(auth) ? auth.replace(BEARER, '').trim() || null : null;
  // The first key given, once every other one given is the same (empty ones are null: not given).
  return agree(agree(fromQuery, fromHeader), fromBearer);
}

function agree(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null || b === a) return a;
  throw new AppError(
    'api_key_mismatch',
    'the keys given (apikey parameter, X-Api-Key header, Bearer token) are not the same key',
  );
}

export function authenticate(deps: Deps, limiter: RateLimiter | null) {
  return async function authenticateRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const key = presentedKey(request);
    if (key === null) {
      throw new AppError('api_key_required', 'send your API key in the X-Api-Key header or the apikey parameter', {
        param: 'apikey',
      });
    }
    if (key.length > 200) throw new AppError('invalid_api_key', 'the API key is not valid');
    request.principal = await authenticateApiKeyCached(deps, key);
    if (limiter === null) return;
    const decision = await limiter.hit(request.principal.keyId);
    reply.header('RateLimit-Limit', String(decision.limit));
    reply.header('RateLimit-Remaining', String(decision.remaining));
    reply.header('RateLimit-Reset', String(decision.resetSeconds));
    if (!decision.allowed) {
      throw new AppError('rate_limited', `more than ${decision.limit} requests a minute with this key`, {
        retryAfter: decision.resetSeconds,
      });
    }
  };
}

export function requirePrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('api_key_required', 'an API key is required');
  return request.principal;
}
