import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  signStandardWebhook,
  signWebhookPayload,
  verifyStandardWebhook,
  verifyWebhookSignature,
} from '../../src/index.js';
import { newWebhookSecret } from '../../src/services/webhooks/webhook-secret.js';

const secret = 'whsec_0123456789abcdefghijABCDEFGHIJ01';
const body =
  '{"id":"evt_1","type":"transaction.paid","created_at":"2025-01-01T00:00:00.000Z","data":{"amount":12000,"note":"Rp ½ ✓"}}';
const t = 1_735_689_600; // 2025-01-01T00:00:00Z
const at = (seconds: number) => seconds * 1000;

describe('signWebhookPayload', () => {
  it('is HMAC-SHA256 of "<t>.<raw body>" keyed by the whole secret, in hex', () => {
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(signWebhookPayload(secret, body, t)).toBe(`t=${t},v1=${expected}`);
    expect(signWebhookPayload(secret, Buffer.from(body), t)).toBe(`t=${t},v1=${expected}`);
  });
});

describe('verifyWebhookSignature', () => {
  const header = signWebhookPayload(secret, body, t);

  it('accepts the raw body as text, Buffer or Uint8Array', () => {
    expect(verifyWebhookSignature({ payload: body, header, secret, now: at(t) })).toBe(true);
    expect(verifyWebhookSignature({ payload: Buffer.from(body), header, secret, now: new Date(at(t + 10)) })).toBe(
      true,
    );
    expect(
      verifyWebhookSignature({ payload: new Uint8Array(Buffer.from(body)), header, secret, now: at(t - 10) }),
    ).toBe(true);
  });

  it('rejects any change to the body, including re-serialised JSON', () => {
    expect(verifyWebhookSignature({ payload: `${body} `, header, secret, now: at(t) })).toBe(false);
    expect(
      verifyWebhookSignature({ payload: JSON.stringify(JSON.parse(body), null, 1), header, secret, now: at(t) }),
    ).toBe(false);
    expect(verifyWebhookSignature({ payload: body.replace('12000', '12001'), header, secret, now: at(t) })).toBe(false);
  });

  it('rejects another secret and a changed timestamp', () => {
    expect(verifyWebhookSignature({ payload: body, header, secret: `${secret}x`, now: at(t) })).toBe(false);
    expect(
      verifyWebhookSignature({ payload: body, header: header.replace(`t=${t}`, `t=${t + 1}`), secret, now: at(t) }),
    ).toBe(false);
  });

  it('rejects stale and future timestamps beyond the tolerance (300 s by default)', () => {
    expect(verifyWebhookSignature({ payload: body, header, secret, now: at(t + 300) })).toBe(true);
    expect(verifyWebhookSignature({ payload: body, header, secret, now: at(t + 301) })).toBe(false);
    expect(verifyWebhookSignature({ payload: body, header, secret, now: at(t - 301) })).toBe(false);
    expect(verifyWebhookSignature({ payload: body, header, secret, now: at(t + 3600), toleranceSeconds: 3600 })).toBe(
      true,
    );
    expect(verifyWebhookSignature({ payload: body, header, secret, now: at(t + 1), toleranceSeconds: 0 })).toBe(false);
    // Default clock: a signature made now verifies, one from 2025-01-01 no longer does.
    expect(
      verifyWebhookSignature({ payload: body, header: signWebhookPayload(secret, body, Date.now() / 1000), secret }),
    ).toBe(true);
    expect(verifyWebhookSignature({ payload: body, header, secret })).toBe(false);
  });

  it('accepts any of several v1 signatures (secret rotation on the sending side)', () => {
    const old = signWebhookPayload('whsec_old', body, t).split(',')[1]!;
    const current = header.split(',')[1]!;
    expect(verifyWebhookSignature({ payload: body, header: `t=${t},${old},${current}`, secret, now: at(t) })).toBe(
      true,
    );
    expect(verifyWebhookSignature({ payload: body, header: `t=${t}, ${current}, v2=abc`, secret, now: at(t) })).toBe(
      true,
    );
    expect(verifyWebhookSignature({ payload: body, header: `t=${t},${old}`, secret, now: at(t) })).toBe(false);
  });

  it('accepts a list of secrets (rotation on the receiving side)', () => {
    expect(verifyWebhookSignature({ payload: body, header, secret: ['whsec_new', secret], now: at(t) })).toBe(true);
    expect(verifyWebhookSignature({ payload: body, header, secret: ['whsec_new'], now: at(t) })).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['empty', ''],
    ['no timestamp', header.split(',')[1]],
    ['no signature', `t=${t}`],
    ['two timestamps', `t=${t},t=${t},${header.split(',')[1]}`],
    ['timestamp not a number', header.replace(`t=${t}`, 't=abc')],
    ['short signature', `t=${t},v1=abcd`],
    ['non-hex signature', `t=${t},v1=${'z'.repeat(64)}`],
    ['garbage', 'hello world'],
    ['oversized', `t=${t},${'v1=00,'.repeat(2000)}`],
  ])('rejects a %s header', (_why, value) => {
    expect(
      verifyWebhookSignature({ payload: body, header: value as string | null | undefined, secret, now: at(t) }),
    ).toBe(false);
  });

  it('throws when the receiver passes no secret (a bug, not a bad request)', () => {
    expect(() => verifyWebhookSignature({ payload: body, header, secret: '' })).toThrow(TypeError);
    expect(() => verifyWebhookSignature({ payload: body, header, secret: [] })).toThrow(TypeError);
  });
});

// Standard Webhooks. The gateway's secrets come in two generations: before, `whsec_` and 32 base62
// characters; now, `whsec_` and the base64 of 32 random bytes. Both must work with the standardwebhooks
// package as they are, with no migration.
const oldSecret = 'whsec_0123456789abcdefghijABCDEFGHIJ01'; // the shape every endpoint made before had
const newSecret = 'whsec_q83vEjRWeJq7zN7vEjRWeJq7zN7vEjRWeJq7zN7vEjQ='; // 32 bytes
const msgId = 'evt_0001JABCDEFGHIJKLMNOPQRSTUV';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = (length: number) =>
  fc.string({ unit: fc.constantFrom(...BASE62), minLength: length, maxLength: length });
const keyOf = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
/** What the standardwebhooks package itself signs (it reads the time from a Date). */
const theirSign = (secret: string, id: string, seconds: number, payload: string) =>
  new Webhook(secret).sign(id, new Date(seconds * 1000), payload);
const headersFor = (signature: string, id = msgId, timestamp = String(t)) => ({ id, timestamp, signature });

afterEach(() => {
  vi.useRealTimers();
});

describe('webhook secrets', () => {
  it('a secret made before Standard Webhooks (whsec_ + 32 base62) is already valid base64 of 24 bytes', () => {
    fc.assert(
      fc.property(base62(32), (text) => {
        const secret = `whsec_${text}`;
        const key = keyOf(secret);
        expect(key).toHaveLength(24);
        // Canonical: encoding the key again gives the same text, so no character was dropped or ignored.
        expect(key.toString('base64')).toBe(text);
        // The standardwebhooks package reads it as the same key.
        expect(theirSign(secret, msgId, t, body)).toBe(
          `v1,${createHmac('sha256', key).update(`${msgId}.${t}.${body}`).digest('base64')}`,
        );
      }),
    );
  });

  it('a new secret is whsec_ + standard base64 of 32 random bytes', () => {
    const secrets = Array.from({ length: 200 }, newWebhookSecret);
    expect(new Set(secrets).size).toBe(secrets.length);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(keyOf(secret)).toHaveLength(32);
      expect(keyOf(secret).toString('base64')).toBe(secret.slice('whsec_'.length));
      expect(() => new Webhook(secret)).not.toThrow();
    }
  });
});

describe('signStandardWebhook', () => {
  it('is v1, and the base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>" keyed by the decoded secret', () => {
    for (const secret of [oldSecret, newSecret]) {
      const expected = createHmac('sha256', keyOf(secret)).update(`${msgId}.${t}.${body}`).digest('base64');
      expect(signStandardWebhook(secret, msgId, t, body)).toBe(`v1,${expected}`);
      expect(signStandardWebhook(secret, msgId, t + 0.9, Buffer.from(body))).toBe(`v1,${expected}`);
      // The prefix is optional, as in the Standard Webhooks libraries; the key is the same.
      expect(signStandardWebhook(secret.slice('whsec_'.length), msgId, t, body)).toBe(`v1,${expected}`);
      // Not the X-Signature key: that one is the secret's text.
      expect(expected).not.toBe(createHmac('sha256', secret).update(`${msgId}.${t}.${body}`).digest('base64'));
    }
  });

  it('signs exactly as the standardwebhooks package does, for any key, id, time and body', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          base62(32).map((s) => `whsec_${s}`),
          fc.uint8Array({ minLength: 1, maxLength: 64 }).map((k) => `whsec_${Buffer.from(k).toString('base64')}`),
        ),
        fc.stringMatching(/^[\x21-\x7e]{1,64}$/),
        fc.integer({ min: 0, max: 4_102_444_800 }),
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        (secret, id, seconds, payload) => {
          expect(signStandardWebhook(secret, id, seconds, payload)).toBe(theirSign(secret, id, seconds, payload));
        },
      ),
    );
  });

  it.each([
    ['empty', ''],
    ['only the prefix', 'whsec_'],
    ['not base64', 'whsec_not base64!'],
    ['a stray character', 'whsec_x'],
    ['base64 without its padding', 'whsec_QUJD'.slice(0, -1)],
    ['url-safe base64', 'whsec_-_-_'],
    ['another prefix', 'sk_test_QUJD'],
  ])('throws a TypeError for a secret that is %s', (_why, secret) => {
    expect(() => signStandardWebhook(secret, msgId, t, body)).toThrow(TypeError);
    expect(() =>
      verifyStandardWebhook({
        payload: body,
        headers: headersFor(signStandardWebhook(newSecret, msgId, t, body)),
        secret,
        now: at(t),
      }),
    ).toThrow(TypeError);
    expect(() =>
      verifyStandardWebhook({ payload: body, headers: headersFor('v1,x'), secret: [newSecret, secret], now: at(t) }),
    ).toThrow(TypeError);
  });

  it('refuses an id or a time it cannot put in the headers', () => {
    expect(() => signStandardWebhook(newSecret, '', t, body)).toThrow(TypeError);
    expect(() => signStandardWebhook(newSecret, 'evt 1', t, body)).toThrow(TypeError);
    expect(() => signStandardWebhook(newSecret, msgId, Number.NaN, body)).toThrow(TypeError);
    expect(() => signStandardWebhook(newSecret, msgId, -1, body)).toThrow(TypeError);
  });
});

describe('verifyStandardWebhook', () => {
  const signature = signStandardWebhook(newSecret, msgId, t, body);
  const headers = headersFor(signature);

  it('accepts what it signs, and what the standardwebhooks package signs, for both secret forms', () => {
    for (const secret of [oldSecret, newSecret]) {
      const theirs = theirSign(secret, msgId, t, body);
      expect(verifyStandardWebhook({ payload: body, headers: headersFor(theirs), secret, now: at(t) })).toBe(true);
      expect(
        verifyStandardWebhook({
          payload: Buffer.from(body),
          headers: headersFor(theirs),
          secret,
          now: new Date(at(t + 10)),
        }),
      ).toBe(true);
      expect(
        verifyStandardWebhook({
          payload: new Uint8Array(Buffer.from(body)),
          headers: headersFor(theirs),
          secret,
          now: at(t - 10),
        }),
      ).toBe(true);
    }
  });

  it('is what the standardwebhooks package accepts: its verify takes our headers', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at(t));
    for (const secret of [oldSecret, newSecret]) {
      const sent = {
        'webhook-id': msgId,
        'webhook-timestamp': String(t),
        'webhook-signature': signStandardWebhook(secret, msgId, t, body),
      };
      expect(new Webhook(secret).verify(body, sent)).toEqual(JSON.parse(body));
      expect(() => new Webhook(secret).verify(`${body} `, sent)).toThrow(/signature/);
    }
  });

  it('rejects any change to the body, the id or the timestamp, and another secret', () => {
    expect(verifyStandardWebhook({ payload: `${body} `, headers, secret: newSecret, now: at(t) })).toBe(false);
    expect(
      verifyStandardWebhook({
        payload: JSON.stringify(JSON.parse(body), null, 1),
        headers,
        secret: newSecret,
        now: at(t),
      }),
    ).toBe(false);
    expect(
      verifyStandardWebhook({
        payload: body,
        headers: headersFor(signature, 'evt_other'),
        secret: newSecret,
        now: at(t),
      }),
    ).toBe(false);
    expect(
      verifyStandardWebhook({
        payload: body,
        headers: headersFor(signature, msgId, String(t + 1)),
        secret: newSecret,
        now: at(t),
      }),
    ).toBe(false);
    expect(verifyStandardWebhook({ payload: body, headers, secret: oldSecret, now: at(t) })).toBe(false);
    expect(verifyStandardWebhook({ payload: body, headers, secret: newWebhookSecret(), now: at(t) })).toBe(false);
  });

  it('holds for any signed message, and fails when any byte of the body, id or timestamp changes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.stringMatching(/^[\x21-\x7e]{1,64}$/),
        fc.integer({ min: 0, max: 4_102_444_800 }),
        fc.uint8Array({ maxLength: 300 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (key, id, seconds, payload, where, mask) => {
          const secret = `whsec_${Buffer.from(key).toString('base64')}`;
          const timestamp = String(seconds);
          const sig = signStandardWebhook(secret, id, seconds, payload);
          const check = (p: Uint8Array, i: string, ts: string) =>
            verifyStandardWebhook({
              payload: p,
              headers: { id: i, timestamp: ts, signature: sig },
              secret,
              now: at(seconds),
            });
          expect(check(payload, id, timestamp)).toBe(true);

          if (payload.length > 0) {
            const changed = Uint8Array.from(payload);
            changed[where % payload.length]! ^= mask;
            expect(check(changed, id, timestamp)).toBe(false);
          }
          const flip = (text: string) => {
            const raw = Buffer.from(text, 'latin1');
            raw[where % raw.length]! ^= mask;
            return raw.toString('latin1');
          };
          expect(check(payload, flip(id), timestamp)).toBe(false);
          expect(check(payload, id, flip(timestamp))).toBe(false);
          // A changed digit that stays within the tolerance is refused by the signature, not the clock.
          const near = String(seconds === 0 ? 1 : seconds - 1);
          expect(check(payload, id, near)).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects stale and future timestamps beyond the tolerance (300 s by default)', () => {
    expect(verifyStandardWebhook({ payload: body, headers, secret: newSecret, now: at(t + 300) })).toBe(true);
    expect(verifyStandardWebhook({ payload: body, headers, secret: newSecret, now: at(t + 301) })).toBe(false);
    expect(verifyStandardWebhook({ payload: body, headers, secret: newSecret, now: at(t - 301) })).toBe(false);
    expect(
      verifyStandardWebhook({ payload: body, headers, secret: newSecret, now: at(t + 3600), toleranceSeconds: 3600 }),
    ).toBe(true);
    expect(
      verifyStandardWebhook({ payload: body, headers, secret: newSecret, now: at(t + 1), toleranceSeconds: 0 }),
    ).toBe(false);
    expect(verifyStandardWebhook({ payload: body, headers, secret: newSecret, now: at(t), toleranceSeconds: -1 })).toBe(
      false,
    );
    expect(
      verifyStandardWebhook({ payload: body, headers, secret: newSecret, now: at(t), toleranceSeconds: Number.NaN }),
    ).toBe(false);
    // Default clock: a signature made now verifies, one from 2025-01-01 no longer does.
    const nowSeconds = Math.floor(Date.now() / 1000);
    const fresh = headersFor(signStandardWebhook(newSecret, msgId, nowSeconds, body), msgId, String(nowSeconds));
    expect(verifyStandardWebhook({ payload: body, headers: fresh, secret: newSecret })).toBe(true);
    expect(verifyStandardWebhook({ payload: body, headers, secret: newSecret })).toBe(false);
  });

  it('accepts any of several v1 signatures, separated by spaces, and ignores other versions', () => {
    const other = signStandardWebhook(oldSecret, msgId, t, body);
    expect(
      verifyStandardWebhook({
        payload: body,
        headers: headersFor(`${other} ${signature}`),
        secret: newSecret,
        now: at(t),
      }),
    ).toBe(true);
    expect(
      verifyStandardWebhook({
        payload: body,
        headers: headersFor(`v1a,abc ${signature} v2,xyz`),
        secret: newSecret,
        now: at(t),
      }),
    ).toBe(true);
    expect(verifyStandardWebhook({ payload: body, headers: headersFor(other), secret: newSecret, now: at(t) })).toBe(
      false,
    );
    // The right signature under another version name is not a v1 signature.
    expect(
      verifyStandardWebhook({
        payload: body,
        headers: headersFor(signature.replace('v1,', 'v2,')),
        secret: newSecret,
        now: at(t),
      }),
    ).toBe(false);
  });

  it('accepts a list of secrets (rotation on the receiving side), in either form', () => {
    expect(verifyStandardWebhook({ payload: body, headers, secret: [oldSecret, newSecret], now: at(t) })).toBe(true);
    expect(verifyStandardWebhook({ payload: body, headers, secret: [oldSecret], now: at(t) })).toBe(false);
  });

  const sig = signStandardWebhook(newSecret, msgId, t, body);
  const digest = sig.slice(3);
  it.each([
    ['no id', { id: undefined, timestamp: String(t), signature: sig }],
    ['a null id', { id: null, timestamp: String(t), signature: sig }],
    ['an empty id', { id: '', timestamp: String(t), signature: sig }],
    ['an id with a space', { id: 'evt 1', timestamp: String(t), signature: sig }],
    ['an over-long id', { id: 'e'.repeat(257), timestamp: String(t), signature: sig }],
    ['a repeated id header', { id: [msgId, msgId], timestamp: String(t), signature: sig }],
    ['no timestamp', { id: msgId, timestamp: undefined, signature: sig }],
    ['an empty timestamp', { id: msgId, timestamp: '', signature: sig }],
    ['a timestamp not a number', { id: msgId, timestamp: 'abc', signature: sig }],
    ['a timestamp with trailing text', { id: msgId, timestamp: `${t}abc`, signature: sig }],
    ['a fractional timestamp', { id: msgId, timestamp: `${t}.0`, signature: sig }],
    ['a negative timestamp', { id: msgId, timestamp: `-${t}`, signature: sig }],
    ['a timestamp in milliseconds', { id: msgId, timestamp: String(at(t)), signature: sig }],
    ['a padded timestamp', { id: msgId, timestamp: ` ${t}`, signature: sig }],
    ['no signature', { id: msgId, timestamp: String(t), signature: undefined }],
    ['an empty signature', { id: msgId, timestamp: String(t), signature: '' }],
    ['a signature without its version', { id: msgId, timestamp: String(t), signature: digest }],
    ['a bare version', { id: msgId, timestamp: String(t), signature: 'v1,' }],
    ['a short signature', { id: msgId, timestamp: String(t), signature: `v1,${digest.slice(4)}` }],
    ['a signature without padding', { id: msgId, timestamp: String(t), signature: `v1,${digest.slice(0, -1)}` }],
    [
      'a hex signature',
      { id: msgId, timestamp: String(t), signature: `v1,${Buffer.from(digest, 'base64').toString('hex')}` },
    ],
    ['a non-base64 signature', { id: msgId, timestamp: String(t), signature: `v1,${'!'.repeat(43)}=` }],
    [
      'a signature with a comma-separated list',
      { id: msgId, timestamp: String(t), signature: `v1,${digest},v1,${digest}` },
    ],
    ['an X-Signature value', { id: msgId, timestamp: String(t), signature: signWebhookPayload(newSecret, body, t) }],
    ['garbage', { id: msgId, timestamp: String(t), signature: 'hello world' }],
    ['an oversized signature', { id: msgId, timestamp: String(t), signature: `${'v1,AAAA '.repeat(600)}${sig}` }],
    ['a repeated signature header', { id: msgId, timestamp: String(t), signature: [sig, sig] }],
  ])('is false, not an exception, for %s', (_why, value) => {
    expect(verifyStandardWebhook({ payload: body, headers: value, secret: newSecret, now: at(t) })).toBe(false);
  });

  it('throws when the receiver passes no secret (a bug, not a bad request)', () => {
    expect(() => verifyStandardWebhook({ payload: body, headers, secret: '' })).toThrow(TypeError);
    expect(() => verifyStandardWebhook({ payload: body, headers, secret: [] })).toThrow(TypeError);
  });
});
