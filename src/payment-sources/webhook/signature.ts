import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a signature's timestamp may be from our clock, either way: replays older than this fail. */
const SIGNATURE_WINDOW_MS = 5 * 60 * 1000;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, as senders compute it. */
export function signPayload(secret: string, body: Buffer | string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${hmac(secret, unixSeconds, body).toString('hex')}`;
}

export type SignatureCheck = { ok: true } | { ok: false; why: 'missing' | 'malformed' | 'expired' | 'mismatch' };

/**
 * Verifies X-Signature over the exact bytes received. Every v1 value is compared in constant time, so
 * a sender rotating its secret may send two. The timestamp is checked first but its failure is only
 * reported after the comparison would have run, so timing does not tell which part was wrong.
 */
export function verifySignature(header: unknown, secret: string, body: Buffer, now: number): SignatureCheck {
  if (typeof header !== 'string' || header.trim() === '') return { ok: false, why: 'missing' };
  let t: number | null = null;
  const v1: Buffer[] = [];
  for (const part of header.split(',')) {
    const [key, value, ...rest] = part.trim().split('=');
    if (rest.length > 0 || value === undefined) return { ok: false, why: 'malformed' };
    if (key === 't') {
      if (t !== null || !/^[0-9]{1,12}$/.test(value)) return { ok: false, why: 'malformed' };
      t = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) return { ok: false, why: 'malformed' };
      v1.push(Buffer.from(value, 'hex'));
    }
    // Other keys (future schemes) are ignored, as Stripe-style verifiers do.
  }
  if (t === null || v1.length === 0 || v1.length > 4) return { ok: false, why: 'malformed' };
  const expected = hmac(secret, t, body);
  let matched = false;
  for (const candidate of v1) matched = timingSafeEqual(candidate, expected) || matched;
  if (Math.abs(now - t * 1000) > SIGNATURE_WINDOW_MS) return { ok: false, why: 'expired' };
  return matched ? { ok: true } : { ok: false, why: 'mismatch' };
}

function hmac(secret: string, t: number, body: Buffer | string): Buffer {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest();
}
