import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhookPayload, verifyWebhookSignature } from '../../src/index.js';

const secret = 'whsec_0123456789abcdefghijABCDEFGHIJ01';
const body = '{"id":"evt_1","type":"transaction.paid","created_at":"2025-01-01T00:00:00.000Z","data":{"amount":12000,"note":"Rp ½ ✓"}}';
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
    expect(verifyWebhookSignature({ payload: Buffer.from(body), header, secret, now: new Date(at(t + 10)) })).toBe(true);
    expect(verifyWebhookSignature({ payload: new Uint8Array(Buffer.from(body)), header, secret, now: at(t - 10) })).toBe(true);
  });

  it('rejects any change to the body, including re-serialised JSON', () => {
    expect(verifyWebhookSignature({ payload: `${body} `, header, secret, now: at(t) })).toBe(false);
    expect(verifyWebhookSignature({ payload: JSON.stringify(JSON.parse(body), null, 1), header, secret, now: at(t) })).toBe(false);
    expect(verifyWebhookSignature({ payload: body.replace('12000', '12001'), header, secret, now: at(t) })).toBe(false);
  });

  it('rejects another secret and a changed timestamp', () => {
    expect(verifyWebhookSignature({ payload: body, header, secret: `${secret}x`, now: at(t) })).toBe(false);
    expect(verifyWebhookSignature({ payload: body, header: header.replace(`t=${t}`, `t=${t + 1}`), secret, now: at(t) })).toBe(false);
  });

  it('rejects stale and future timestamps beyond the tolerance (300 s by default)', () => {
    expect(verifyWebhookSignature({ payload: body, header, secret, now: at(t + 300) })).toBe(true);
    expect(verifyWebhookSignature({ payload: body, header, secret, now: at(t + 301) })).toBe(false);
    expect(verifyWebhookSignature({ payload: body, header, secret, now: at(t - 301) })).toBe(false);
    expect(verifyWebhookSignature({ payload: body, header, secret, now: at(t + 3600), toleranceSeconds: 3600 })).toBe(true);
    expect(verifyWebhookSignature({ payload: body, header, secret, now: at(t + 1), toleranceSeconds: 0 })).toBe(false);
    // Default clock: a signature made now verifies, one from 2025-01-01 no longer does.
    expect(verifyWebhookSignature({ payload: body, header: signWebhookPayload(secret, body, Date.now() / 1000), secret })).toBe(true);
    expect(verifyWebhookSignature({ payload: body, header, secret })).toBe(false);
  });

  it('accepts any of several v1 signatures (secret rotation on the sending side)', () => {
    const old = signWebhookPayload('whsec_old', body, t).split(',')[1]!;
    const current = header.split(',')[1]!;
    expect(verifyWebhookSignature({ payload: body, header: `t=${t},${old},${current}`, secret, now: at(t) })).toBe(true);
    expect(verifyWebhookSignature({ payload: body, header: `t=${t}, ${current}, v2=abc`, secret, now: at(t) })).toBe(true);
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
    expect(verifyWebhookSignature({ payload: body, header: value as string | null | undefined, secret, now: at(t) })).toBe(false);
  });

  it('throws when the receiver passes no secret (a bug, not a bad request)', () => {
    expect(() => verifyWebhookSignature({ payload: body, header, secret: '' })).toThrow(TypeError);
    expect(() => verifyWebhookSignature({ payload: body, header, secret: [] })).toThrow(TypeError);
  });
});
