import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { randomBase62 } from '../../domain/ids.js';
import { hmacMatches } from '../shared-secret.js';
import { verifySignature } from '../webhook/signature.js';

/**
 * A phone source's credentials as stored in its config: the secret as given (an HMAC needs it) and the
 * token's SHA-256 only (a token is compared, never used to sign). After `source rotate` the previous pair
 * stays valid until `until` (PHONE_ROTATE_GRACE_SECONDS).
 */
export interface PhoneCredentials {
  secret: string;
  token_hash: string;
  previous?: { secret: string; token_hash: string; until: number } | null;
}

export const newPhoneToken = (): string => `ptk_${randomBase62(32)}`;
export const newPhoneSecret = (): string => `phsec_${randomBase62(43)}`;
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** How a post proved who sent it. */
export type PhoneAuth = 'x-signature' | 'signature' | 'bearer' | 'query-token';

const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;
const BEARER = /^Bearer[ \t]+([\x21-\x7e]{1,200})[ \t]*$/i;

/** A token against a stored SHA-256, compared in constant time (both 32 bytes). */
function tokenMatches(token: string, hash: Buffer): boolean {
  return hash.length === 32 && timingSafeEqual(createHash('sha256').update(token).digest(), hash);
}

function currentPairs(credentials: PhoneCredentials, now: number): Array<{ secret: string; hash: Buffer }> {
  const pairs = [{ secret: credentials.secret, hash: Buffer.from(credentials.token_hash, 'hex') }];
  const previous = credentials.previous;
  if (previous && previous.until > now)
    pairs.push({ secret: previous.secret, hash: Buffer.from(previous.token_hash, 'hex') });
  return pairs;
}

/**
 * Which of the accepted proofs the post carries, checked against this source's current credentials (and
 * the previous ones within their grace), or null: `X-Signature: <hex HMAC-SHA256(secret, body)>` (SMS to
 * URL Forwarder's own format, no timestamp); `X-Signature: t=...,v1=...` (the gateway's signed webhooks);
 * the token as `Authorization: Bearer` or `?token=`. Every comparison runs in constant time, against this
 * source's values only (the source is the one named in the path), and all of them run whatever matches.
 */
export function authenticatePhonePost(
  credentials: PhoneCredentials,
  post: { headers: IncomingHttpHeaders; query: Readonly<Record<string, unknown>>; body: Buffer },
  now: number,
): PhoneAuth | null {
  const pairs = currentPairs(credentials, now);
  const signature = post.headers['x-signature'];
  const bearer =
    typeof post.headers.authorization === 'string' ? BEARER.exec(post.headers.authorization)?.[1] : undefined;
  const queryToken =
    typeof post.query.token === 'string' && post.query.token.length <= 200 ? post.query.token : undefined;
  let found: PhoneAuth | null = null;
  for (const { secret, hash } of pairs) {
    if (typeof signature === 'string') {
      if (HEX_DIGEST.test(signature.trim())) {
        if (hmacMatches(secret, post.body, signature.trim())) found ??= 'x-signature';
      } else if (verifySignature(signature, secret, post.body, now).ok) {
        found ??= 'signature';
      }
    }
    if (bearer !== undefined && tokenMatches(bearer, hash)) found ??= 'bearer';
    if (queryToken !== undefined && tokenMatches(queryToken, hash)) found ??= 'query-token';
  }
  return found;
}

export function readCredentials(config: Record<string, unknown>): PhoneCredentials | null {
  const { secret, token_hash, previous } = config as Partial<PhoneCredentials>;
  if (typeof secret !== 'string' || secret === '' || typeof token_hash !== 'string' || !HEX_DIGEST.test(token_hash))
    return null;
  return { secret, token_hash, previous: previous ?? null };
}
