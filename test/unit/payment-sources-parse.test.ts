import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import {
  DEFAULT_MAPPING,
  FeedFormatError,
  QRIS_HISTORY_MAPPING,
  parseFeed,
  parseFeedAmount,
  parseFeedTime,
} from '../../src/payment-sources/feed/parse.js';
import { delayMs, parseRetryAfter } from '../../src/payment-sources/feed/poll.js';
import { checkMapping, feedContentType } from '../../src/payment-sources/feed/setup.js';
import { parseWebhookPayment } from '../../src/payment-sources/webhook/payload.js';
import { signPayload, verifySignature } from '../../src/payment-sources/webhook/signature.js';

const NOW = Date.UTC(2025, 0, 31, 7, 5, 0);

describe('feed amounts', () => {
  it.each([
    ['10123', 10_123],
    [10_123, 10_123],
    ['10.123', 10_123],
    ['10,123', 10_123],
    ['1.234.567', 1_234_567],
    ['10.123,00', 10_123],
    ['10,123.00', 10_123],
    ['10123.00', 10_123],
    ['10123,0', 10_123],
    ['Rp 10.123', 10_123],
    ['IDR10,123', 10_123],
    [' 10123 ', 10_123],
  ])('%j is %d', (raw, expected) => expect(parseFeedAmount(raw)).toBe(expected));

  it.each([
    '',
    'abc',
    '-10000',
    '10.12',
    '1,5',
    '10.1234',
    '1.23.456',
    '1.234,567',
    '0',
    0,
    -5,
    10.5,
    null,
    undefined,
    {},
    '1e5',
    '9999999999999999',
  ])('%j is unreadable', (raw) => expect(parseFeedAmount(raw)).toBeNull());
});

describe('feed times', () => {
  const wib = (h: number, m: number, s = 0) => Date.UTC(2025, 0, 31, h - 7, m, s);
  it.each([
    ['2025-01-31 14:05:09', wib(14, 5, 9)],
    ['2025-01-31 14:05', wib(14, 5)],
    ['2025-1-31 4:05', wib(4, 5)],
    ['2025-01-31T14:05:09', wib(14, 5, 9)],
    ['2025-01-31T07:05:09Z', wib(14, 5, 9)],
    ['2025-01-31T14:05:09+07:00', wib(14, 5, 9)],
    ['2025-01-31 15:05:09+0800', wib(14, 5, 9)],
    ['2025-01-31 14:05:09 WIB', wib(14, 5, 9)],
    ['31/01/2025 14:05', wib(14, 5)],
    ['31-01-2025 14:05:09', wib(14, 5, 9)],
    [1738307109, 1738307109000],
  ])('%j', (raw, expected) => expect(parseFeedTime(raw)).toBe(expected));

  it('uses the mapped offset for times without one', () => {
    expect(parseFeedTime('2025-01-31 14:05', '+08:00')).toBe(Date.UTC(2025, 0, 31, 6, 5));
  });

  it.each([
    '2025-02-30 10:00',
    '2025-13-01 10:00',
    '2025-01-31 24:00',
    '2025-01-31 10:60',
    'yesterday',
    '',
    null,
    '1999-01-01 00:00',
  ])('%j is unreadable', (raw) => expect(parseFeedTime(raw)).toBeNull());
});

describe('feed bodies', () => {
  const entry = (over: Record<string, unknown> = {}) => ({
    date: '2025-01-31 14:05:09',
    amount: '10.123',
    type: 'CR',
    qris: 'static',
    brand_name: 'DANA',
    issuer_reff: 'REF-1',
    buyer_reff: 'BUDI',
    balance: '1.000.000',
    ...over,
  });

  it('reads credits, ignores debits, skips junk without failing', () => {
    const parsed = parseFeed({
      status: 'success',
      data: [
        entry(),
        entry({ type: 'DR', issuer_reff: 'REF-2' }),
        'junk',
        null,
        entry({ amount: 'x', issuer_reff: 'REF-3' }),
        entry({ date: 'soon', issuer_reff: 'REF-4' }),
      ],
    });
    expect(parsed.entries).toEqual([
      {
        id: 'REF-1',
        amount: 10_123,
        paidAt: Date.UTC(2025, 0, 31, 7, 5, 9),
        reference: 'REF-1',
        issuer: 'DANA',
        payer: 'BUDI',
        raw: entry(),
      },
    ]);
    expect(parsed.ignored).toBe(1);
    expect(parsed.skipped.map((s) => s.index)).toEqual([2, 3, 4, 5]);
  });

  it('"no data" is an empty history', () => {
    expect(parseFeed({ status: 'success', message: 'no data' })).toEqual({ entries: [], ignored: 0, skipped: [] });
    expect(parseFeed({ status: 'success', data: [] }).entries).toEqual([]);
  });

  it.each([
    [{ status: 'failed', message: 'invalid token' }],
    [{ status: 'success' }],
    [{ status: 'success', data: 'nope' }],
    [[1, 2]],
    ['text'],
    [null],
  ])('%j is a format error', (body) => expect(() => parseFeed(body)).toThrow(FeedFormatError));

  it('without a reference the id is a stable hash; identical twins get distinct ids', () => {
    const plain = entry({ issuer_reff: '' });
    const a = parseFeed({ status: 'success', data: [plain, plain] });
    const b = parseFeed({ status: 'success', data: [{ ...plain, date: '2025-01-31 14:05:09' }] });
    expect(a.entries).toHaveLength(2);
    expect(a.entries[0]!.id).toMatch(/^h:[0-9a-f]{32}$/);
    expect(a.entries[1]!.id).toBe(`${a.entries[0]!.id}:2`);
    expect(b.entries[0]!.id).toBe(a.entries[0]!.id);
    expect(a.entries[0]!.reference).toBeNull();
  });

  it('a repeated reference in one answer is skipped, not recorded twice', () => {
    const parsed = parseFeed({ status: 'success', data: [entry(), entry()] });
    expect(parsed.entries).toHaveLength(1);
    expect(parsed.skipped).toHaveLength(1);
  });

  it('follows a custom mapping', () => {
    const mapping = checkMapping({
      items: 'result.rows',
      date: 'time',
      amount: 'nominal',
      type: null,
      reference: 'ref',
      issuer: null,
      payer: 'from',
      utcOffset: '+00:00',
    });
    const parsed = parseFeed(
      { result: { rows: [{ time: '2025-01-31 07:05', nominal: 5000, ref: 'X1', from: 'ANI' }] } },
      mapping,
    );
    expect(parsed.entries).toMatchObject([
      { id: 'X1', amount: 5000, paidAt: Date.UTC(2025, 0, 31, 7, 5), issuer: null, payer: 'ANI' },
    ]);
  });

  it('refuses unknown mapping keys and bad offsets', () => {
    expect(() => checkMapping({ amout: 'x' })).toThrow(AppError);
    expect(() => checkMapping({ utcOffset: 'WIB+7' })).toThrow(AppError);
    expect(() => checkMapping([])).toThrow(AppError);
    expect(checkMapping(undefined)).toEqual(DEFAULT_MAPPING);
  });
});

describe('feed backoff', () => {
  it('doubles per failure up to the cap and honours Retry-After', () => {
    const cfg = { intervalSeconds: 10 };
    expect(delayMs(cfg, 0, null, 3_600_000)).toBe(10_000);
    expect(delayMs(cfg, 1, null, 3_600_000)).toBe(20_000);
    expect(delayMs(cfg, 3, null, 3_600_000)).toBe(80_000);
    expect(delayMs(cfg, 30, null, 3_600_000)).toBe(3_600_000);
    expect(delayMs(cfg, 1, 120_000, 3_600_000)).toBe(120_000);
    expect(delayMs(cfg, 1, 1_000, 3_600_000)).toBe(10_000);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('30', NOW)).toBe(30_000);
    expect(parseRetryAfter(new Date(NOW + 90_000).toUTCString(), NOW)).toBe(90_000);
    expect(parseRetryAfter('soon', NOW)).toBeNull();
    expect(parseRetryAfter(null, NOW)).toBeNull();
  });
});

describe('webhook signatures', () => {
  const secret = 'whsec_test';
  const body = Buffer.from('{"id":"p1","amount":10123,"paid_at":"2025-01-31T14:05:00+07:00"}');
  const t = Math.floor(NOW / 1000);

  it('accepts the exact body signed within the window', () => {
    expect(verifySignature(signPayload(secret, body, t), secret, body, NOW)).toEqual({ ok: true });
    expect(verifySignature(signPayload(secret, body, t - 299), secret, body, NOW)).toEqual({ ok: true });
    expect(verifySignature(signPayload(secret, body, t + 299), secret, body, NOW)).toEqual({ ok: true });
  });

  it('accepts any of several v1 values (secret rotation)', () => {
    const good = signPayload(secret, body, t).split('v1=')[1]!;
    expect(verifySignature(`t=${t},v1=${'0'.repeat(64)},v1=${good}`, secret, body, NOW)).toEqual({ ok: true });
  });

  it.each([
    ['missing', undefined],
    ['missing', ''],
    ['malformed', 'v1=abc'],
    ['malformed', `t=${t}`],
    ['malformed', `t=${t},v1=xyz`],
    ['malformed', `t=abc,v1=${'0'.repeat(64)}`],
    ['mismatch', `t=${t},v1=${'0'.repeat(64)}`],
  ])('%s: %j', (why, header) => expect(verifySignature(header, secret, body, NOW)).toEqual({ ok: false, why }));

  it('refuses a changed body, another secret and a timestamp outside 5 minutes', () => {
    const header = signPayload(secret, body, t);
    expect(verifySignature(header, secret, Buffer.from(`${body.toString()} `), NOW)).toEqual({
      ok: false,
      why: 'mismatch',
    });
    expect(verifySignature(header, 'whsec_other', body, NOW)).toEqual({ ok: false, why: 'mismatch' });
    expect(verifySignature(signPayload(secret, body, t - 301), secret, body, NOW)).toEqual({
      ok: false,
      why: 'expired',
    });
    expect(verifySignature(signPayload(secret, body, t + 301), secret, body, NOW)).toEqual({
      ok: false,
      why: 'expired',
    });
  });
});

describe('webhook payloads', () => {
  const limits = { min: 1, max: 10_000_000 };
  const parse = (value: unknown) =>
    parseWebhookPayment(Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)), limits, NOW);
  const base = { id: 'p1', amount: 10_123, paid_at: '2025-01-31T14:05:00+07:00' };

  it('reads every field', () => {
    expect(parse({ ...base, amount: '10123', reference: 'R1', payer: 'Budi Śantoso', issuer: 'DANA' })).toMatchObject({
      id: 'p1',
      amount: 10_123,
      paidAt: Date.UTC(2025, 0, 31, 7, 5),
      reference: 'R1',
      payer: 'Budi Śantoso',
      issuer: 'DANA',
    });
    expect(parse({ ...base, paid_at: '2025-01-31T07:05:00Z', reference: null, payer: '' })).toMatchObject({
      reference: null,
      payer: null,
      issuer: null,
    });
  });

  const code = (value: unknown): [string, string | undefined] => {
    try {
      parse(value);
    } catch (err) {
      if (err instanceof AppError) return [err.code, err.param];
      throw err;
    }
    return ['ok', undefined];
  };

  it.each([
    ['{not json', ['invalid_body', undefined]],
    ['[1]', ['invalid_body', undefined]],
    ['"x"', ['invalid_body', undefined]],
    [{ ...base, extra: 1 }, ['invalid_parameter', 'extra']],
    [{ ...base, id: '' }, ['invalid_parameter', 'id']],
    [{ ...base, id: 7 }, ['invalid_parameter', 'id']],
    [{ ...base, id: ' p1' }, ['invalid_parameter', 'id']],
    [{ ...base, amount: 10.5 }, ['invalid_amount', 'amount']],
    [{ ...base, amount: '10.123' }, ['invalid_amount', 'amount']],
    [{ ...base, amount: -1 }, ['invalid_amount', 'amount']],
    [{ ...base, amount: 0 }, ['amount_out_of_range', 'amount']],
    [{ ...base, amount: undefined }, ['amount_required', 'amount']],
    [{ ...base, paid_at: undefined }, ['invalid_parameter', 'paid_at']],
    [{ ...base, paid_at: '2025-01-31 14:05:00' }, ['invalid_parameter', 'paid_at']],
    [{ ...base, paid_at: '2025-02-30T14:05:00Z' }, ['invalid_parameter', 'paid_at']],
    [{ ...base, paid_at: 1738307100 }, ['invalid_parameter', 'paid_at']],
    [{ ...base, paid_at: '2025-02-01T14:05:00Z' }, ['invalid_parameter', 'paid_at']],
    [{ ...base, reference: 5 }, ['invalid_parameter', 'reference']],
    [{ ...base, payer: 'a\u0000b' }, ['invalid_parameter', 'payer']],
    [{ ...base, issuer: 'x'.repeat(65) }, ['invalid_parameter', 'issuer']],
  ])('%j is refused', (value, expected) => expect(code(value)).toEqual(expected));

  it('refuses invalid UTF-8', () => {
    expect(() => parseWebhookPayment(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), limits, NOW)).toThrow(AppError);
  });
});

describe('qris-history: dd/mm/yyyy HH:MM WIB and dot-thousands amounts', () => {
  const wibText = (ms: number) => {
    const d = new Date(ms + 7 * 3_600_000).toISOString();
    return `${d.slice(8, 10)}/${d.slice(5, 7)}/${d.slice(0, 4)} ${d.slice(11, 16)}`;
  };
  it('reads every minute from 2000 to 2199 back to the instant it was written at', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1, 0, 0) / 60_000, max: Date.UTC(2199, 11, 31, 16, 59) / 60_000 }),
        (minute) => {
          expect(parseFeedTime(wibText(minute * 60_000))).toBe(minute * 60_000);
        },
      ),
    );
  });
  it('reads every amount written with dots between thousands as whole rupiah', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999_999_999_999 }), (n) => {
        expect(parseFeedAmount(String(n).replace(/\B(?=(\d{3})+(?!\d))/g, '.'))).toBe(n);
      }),
    );
    expect(parseFeedAmount('1.000')).toBe(1000);
  });
  it('takes IN entries with a credit as payments by their id; OUT and zero credits are ignored', () => {
    const entry = (over: Record<string, unknown>) => ({
      id: 1,
      debet: '0',
      kredit: '1.000',
      keterangan: 'NOBU / EK***',
      tanggal: '28/11/2026 14:05',
      status: 'IN',
      brand: { name: 'DANA' },
      ...over,
    });
    const parsed = parseFeed(
      {
        qris_history: {
          success: true,
          results: [
            entry({}),
            entry({ id: 2, status: 'OUT', kredit: '0', debet: '1.000' }),
            entry({ id: 3, kredit: '0' }),
            entry({ id: 4 }),
            entry({ id: 1 }),
          ],
        },
      },
      QRIS_HISTORY_MAPPING,
    );
    expect(parsed.entries.map((e) => [e.id, e.amount, e.paidAt, e.reference, e.issuer])).toEqual([
      ['1', 1000, Date.UTC(2026, 10, 28, 7, 5), 'NOBU / EK***', 'DANA'],
      ['4', 1000, Date.UTC(2026, 10, 28, 7, 5), 'NOBU / EK***', 'DANA'],
    ]);
    expect(parsed.ignored).toBe(2);
    expect(parsed.skipped).toEqual([{ index: 4, why: 'repeats the id of an earlier entry' }]);
  });
});

describe("a feed body's Content-Type", () => {
  it('is JSON for a JSON object or array, a form otherwise, and the one given by a header first', () => {
    expect(feedContentType({ headers: {}, body: null })).toBeNull();
    expect(feedContentType({ headers: {}, body: '{"username":"u","token":"t"}' })).toBe('application/json');
    expect(feedContentType({ headers: {}, body: '[1]' })).toBe('application/json');
    expect(feedContentType({ headers: {}, body: '"text"' })).toBe('application/x-www-form-urlencoded');
    expect(feedContentType({ headers: {}, body: 'username=u&token=t' })).toBe('application/x-www-form-urlencoded');
    expect(feedContentType({ headers: { 'content-type': 'text/plain' }, body: '{}' })).toBe('text/plain');
  });
  it('checkMapping takes a preset by name and refuses an unknown one', () => {
    expect(checkMapping('qris-history')).toEqual(QRIS_HISTORY_MAPPING);
    expect(() => checkMapping('qris-histori')).toThrow(AppError);
  });
});
