// Constant-time checks of a shared secret as the inbound senders use it: a hex HMAC-SHA256 of the raw
// body (SMS to URL Forwarder, Moota, Mutasibank), or the secret itself in a header (Cekmutasi). The
// gateway's own `t=,v1=` scheme is webhook/signature.ts.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Whether `hex` is the hex HMAC-SHA256 of the raw body under the secret. The digests compared are
 * always 32 bytes (a header that is not 64 hex digits is compared as a zero digest), so the comparison's
 * time tells nothing about either.
 */
export function hmacMatches(secret: string, body: Buffer, hex: string): boolean {
  const wellFormed = /^[0-9a-fA-F]{64}$/.test(hex);
  const expected = createHmac('sha256', secret).update(body).digest();
  const same = timingSafeEqual(wellFormed ? Buffer.from(hex, 'hex') : Buffer.alloc(32), expected);
  return same && wellFormed;
}

/** Whether a header carrying the shared secret itself equals it: compared as SHA-256 digests, equal in length. */
export function secretMatches(secret: string, given: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  const same = timingSafeEqual(digest(given), digest(secret));
  return same && given !== '';
}
