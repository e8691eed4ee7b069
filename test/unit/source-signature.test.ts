// The signature a payment source (a mutation service, a bank's webhook) puts on what it posts:
// X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>.
import { describe, expect, it } from 'vitest';
import { signPayload, verifySignature } from '../../src/payment-sources/webhook/signature.js';

const secret = 'whsec_test';
const body = '{"id":"mut-1","amount":10023}';
const t = 1_700_000_000;
// Computed apart from this code: printf '%s' '1700000000.{"id":"mut-1","amount":10023}' | openssl dgst -sha256 -hmac whsec_test
const VECTOR = '0479454594276125e0abfab64e5520094d35a5118ff42b4c263a189fd45f385e';

describe('payment source signatures', () => {
  it('are HMAC-SHA256 of "<t>.<raw body>" in hex, as an independent tool computes it', () => {
    expect(signPayload(secret, body, t)).toBe(`t=${t},v1=${VECTOR}`);
    expect(signPayload(secret, Buffer.from(body), t)).toBe(`t=${t},v1=${VECTOR}`);
  });

  it('verify over the exact bytes, any case of hex, either of two values, within five minutes', () => {
    const bytes = Buffer.from(body);
    const now = t * 1000;
    expect(verifySignature(`t=${t},v1=${VECTOR}`, secret, bytes, now)).toEqual({ ok: true });
    expect(verifySignature(`t=${t}, v1=${VECTOR.toUpperCase()}`, secret, bytes, now)).toEqual({ ok: true });
    const other = `${VECTOR.slice(0, -1)}${VECTOR.endsWith('e') ? 'f' : 'e'}`;
    expect(verifySignature(`t=${t},v1=${other},v1=${VECTOR}`, secret, bytes, now)).toEqual({ ok: true });
    expect(verifySignature(`t=${t},v1=${other}`, secret, bytes, now)).toEqual({ ok: false, why: 'mismatch' });
    expect(verifySignature(`t=${t},v1=${VECTOR}`, 'whsec_other', bytes, now)).toEqual({ ok: false, why: 'mismatch' });
    expect(verifySignature(`t=${t},v1=${VECTOR}`, secret, Buffer.from(`${body} `), now)).toEqual({
      ok: false,
      why: 'mismatch',
    });
    expect(verifySignature(`t=${t},v1=${VECTOR}`, secret, bytes, now + 5 * 60 * 1000)).toEqual({ ok: true });
    expect(verifySignature(`t=${t},v1=${VECTOR}`, secret, bytes, now + 5 * 60 * 1000 + 1)).toEqual({
      ok: false,
      why: 'expired',
    });
    expect(verifySignature(`t=${t},v1=${VECTOR.slice(2)}`, secret, bytes, now)).toEqual({
      ok: false,
      why: 'malformed',
    });
    expect(verifySignature(undefined, secret, bytes, now)).toEqual({ ok: false, why: 'missing' });
  });
});
