import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { parseQris, parseTlv } from '../../../src/domain/qris/index.js';
import { createTestApp, seedMerchant, vectors, type TestApp } from '../../helpers/context.js';
import { expectError as expectErrorEnvelope } from '../../helpers/http-assertions.js';
import { CQRIS } from '../../helpers/api.js';

// Every error these tests expect without a param must name none.
const expectError = (
  res: Parameters<typeof expectErrorEnvelope>[0],
  status: number,
  code: Parameters<typeof expectErrorEnvelope>[2],
  param?: string,
) => expectErrorEnvelope(res, status, code, param ?? null);

// jsqr is CommonJS with ES-style typings (see test/unit/qr-image.test.ts).
const jsQR = jsQRModule.default;

const TRXID = /^trx_[0-9a-z]{9}[0-9A-Za-z]{22}$/;
const BASE = 'http://gateway.test';

type Query = Record<string, string> | string;

function qs(query: Query): string {
  return typeof query === 'string' ? query : new URLSearchParams(query).toString();
}

function get(t: TestApp, query: Query, key: string = t.testKey): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'GET', url: `${CQRIS}?${qs(query)}`, headers: { 'x-api-key': key } });
}

function postJson(t: TestApp, body: unknown, headers: Record<string, string> = {}, key: string = t.testKey) {
  return t.app.inject({
    method: 'POST',
    url: CQRIS,
    headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

async function countTransactions(t: TestApp): Promise<number> {
  const row = await t.deps.db
    .selectFrom('transactions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function decodePngBuffer(png: Buffer): string | undefined {
  const img = PNG.sync.read(png);
  const rgba = new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length);
  return jsQR(rgba, img.width, img.height)?.data;
}

const iso = (ms: number): string => new Date(ms).toISOString();

describe('GET /api/payment-gateway/cqris', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  describe('success', () => {
    it('returns the full transaction shape with a dynamic QRIS for the total', async () => {
      const res = await get(t, { amount: '10000' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-api-version']).toBe('1.0.0');
      expect(res.headers['idempotent-replayed']).toBeUndefined();

      const body = res.json();
      expect(body.success).toBe(true);
      const tx = body.data;
      expect(Object.keys(tx).sort()).toEqual(
        [
          'trxid',
          'status',
          'mode',
          'amount',
          'unique_code',
          'total_amount',
          'currency',
          'email',
          'ref',
          'qris',
          'qr_image_url',
          'qr_image_svg_url',
          'checkout_url',
          'created_at',
          'expires_at',
          'paid_at',
          'paid_late',
          'cancelled_at',
          'amount_paid',
          'underpaid',
          'overpaid',
          'refunded_amount',
          'refund_status',
          'refunds',
          'payment',
        ].sort(),
      );
      expect(tx.trxid).toMatch(TRXID);
      expect(tx.unique_code).toBeGreaterThanOrEqual(1);
      expect(tx.unique_code).toBeLessThanOrEqual(999);
      expect(tx).toEqual({
        trxid: tx.trxid,
        status: 'pending',
        mode: 'test',
        amount: 10000,
        unique_code: tx.unique_code,
        total_amount: 10000 + tx.unique_code,
        currency: 'IDR',
        email: null,
        ref: null,
        qris: tx.qris,
        qr_image_url: `${BASE}/api/payment-gateway/qr/${tx.trxid}.png`,
        qr_image_svg_url: `${BASE}/api/payment-gateway/qr/${tx.trxid}.svg`,
        checkout_url: `${BASE}/checkout/${tx.trxid}`,
        created_at: iso(t.clock.ms),
        expires_at: iso(t.clock.ms + 15 * 60 * 1000),
        paid_at: null,
        paid_late: false,
        cancelled_at: null,
        amount_paid: 0,
        underpaid: 0,
        overpaid: 0,
        refunded_amount: 0,
        refund_status: 'none',
        refunds: [],
        payment: null,
      });
      expect(tx).not.toHaveProperty('qr_image');

      // The payload is a valid dynamic QRIS of the merchant carrying the total in tag 54.
      const parsed = parseQris(tx.qris);
      expect(parsed.initiation).toBe('dynamic');
      expect(parsed.amount).toBe(tx.total_amount);
      expect(parsed.fields.find((f) => f.tag === '54')?.value).toBe(String(tx.total_amount));
      expect(parsed.currency).toBe('360');
      expect(parsed.merchantName).toBe(t.merchant.merchant_name);
      expect(parsed.merchantName).toBe('Warung Contoh');
      expect(parsed.merchantCity).toBe(t.merchant.merchant_city);
      expect(parsed.nmid).toBe(t.merchant.nmid);
      expect(parsed.acquirer).toBe(t.merchant.acquirer);

      // Every field of the static code is carried over unchanged except 01 (now 12), 54 and the CRC.
      const staticFields = parseTlv(t.merchant.qris_static).filter((f) => !['01', '54', '63'].includes(f.tag));
      const dynamicFields = parseTlv(tx.qris).filter((f) => !['01', '54', '63'].includes(f.tag));
      expect(dynamicFields.map((f) => [f.tag, f.value])).toEqual(staticFields.map((f) => [f.tag, f.value]));
      expect(parseTlv(tx.qris).find((f) => f.tag === '01')?.value).toBe('12');

      // And the row is stored as returned.
      const row = await t.deps.db
        .selectFrom('transactions')
        .selectAll()
        .where('id', '=', tx.trxid)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        merchant_id: t.merchant.id,
        mode: 'test',
        status: 'pending',
        amount: 10000,
        unique_code: tx.unique_code,
        total_amount: tx.total_amount,
        qris: tx.qris,
        created_at: t.clock.ms,
        expires_at: t.clock.ms + 900_000,
      });
      const reserved = await t.deps.db
        .selectFrom('reserved_totals')
        .selectAll()
        .where('transaction_id', '=', tx.trxid)
        .executeTakeFirstOrThrow();
      expect(reserved.total_amount).toBe(tx.total_amount);
      expect(reserved.reserved_until).toBe(row.expires_at + t.config.reservationGraceSeconds * 1000);
    });

    it('accepts the key as the apikey query parameter too', async () => {
      const res = await t.app.inject({ url: `${CQRIS}?apikey=${t.testKey}&amount=5000` });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.amount).toBe(5000);
    });

    it('also answers under the doubled /api/api prefix', async () => {
      const res = await t.app.inject({ url: `/api${CQRIS}?amount=7000`, headers: { 'x-api-key': t.testKey } });
      expect(res.statusCode).toBe(200);
      const tx = res.json().data;
      expect(tx.amount).toBe(7000);
      const status = await t.app.inject({
        url: `/api/api/payment-gateway/cstatus?trxid=${tx.trxid}`,
        headers: { 'x-api-key': t.testKey },
      });
      expect(status.statusCode).toBe(200);
      expect(status.json().data.trxid).toBe(tx.trxid);
    });
  });

  describe('amount', () => {
    it('without amount is 400 amount_required', async () => {
      expectError(await get(t, {}), 400, 'amount_required', 'amount');
      expectError(await get(t, { amount: '' }), 400, 'amount_required', 'amount');
    });

    it.each([
      ['-1', 'invalid_amount'],
      ['+1', 'invalid_amount'],
      ['1e4', 'invalid_amount'],
      ['1E4', 'invalid_amount'],
      ['1,000', 'invalid_amount'],
      ['1.000', 'invalid_amount'],
      ['10.000.000', 'invalid_amount'],
      ['10 000', 'invalid_amount'],
      [' 10000', 'invalid_amount'],
      ['10000 ', 'invalid_amount'],
      ['10.5', 'invalid_amount'],
      ['10.50', 'invalid_amount'],
      ['10.', 'invalid_amount'],
      ['.5', 'invalid_amount'],
      ['abc', 'invalid_amount'],
      ['0x10', 'invalid_amount'],
      ['Infinity', 'invalid_amount'],
      ['NaN', 'invalid_amount'],
      ['１０００', 'invalid_amount'], // full-width digits
      ['١٠٠٠', 'invalid_amount'], // Arabic-Indic digits
      ['99999999999999999999999999', 'amount_out_of_range'],
      ['0', 'amount_out_of_range'],
      ['0.00', 'amount_out_of_range'],
      ['10000000', 'amount_out_of_range'], // the maximum includes the unique code
      ['10000001', 'amount_out_of_range'],
    ] as const)('amount=%j is 400 %s', async (amount, code) => {
      const before = await countTransactions(t);
      expectError(await get(t, { amount }), 400, code, 'amount');
      expect(await countTransactions(t)).toBe(before);
    });

    it('a repeated amount parameter is 400 invalid_amount', async () => {
      expectError(await get(t, 'amount=1&amount=2'), 400, 'invalid_amount', 'amount');
      expectError(await get(t, 'amount=1000&amount=1000'), 400, 'invalid_amount', 'amount');
    });

    it.each([
      ['10000.00', 10000],
      ['1', 1],
      ['000250', 250],
    ])('amount=%j is accepted as %d', async (amount, expected) => {
      const res = await get(t, { amount });
      expect(res.statusCode, res.body).toBe(200);
      const tx = res.json().data;
      expect(tx.amount).toBe(expected);
      expect(tx.total_amount).toBe(expected + tx.unique_code);
      expect(parseQris(tx.qris).amount).toBe(tx.total_amount);
    });

    it('the largest amount leaves exactly room for the smallest code: 9,999,999 + 1 = 10,000,000', async () => {
      const res = await get(t, { amount: '9999999' });
      expect(res.statusCode, res.body).toBe(200);
      const tx = res.json().data;
      expect(tx.unique_code).toBe(1);
      expect(tx.total_amount).toBe(10_000_000);
      expect(parseQris(tx.qris).amount).toBe(10_000_000);

      // The one possible total is now taken.
      const again = await get(t, { amount: '9999999' });
      expectError(again, 503, 'unique_code_exhausted');
      expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
    });
  });

  describe('email', () => {
    it.each([
      ['budi.example.com', 'no @'],
      ['budi @example.com', 'space'],
      ['budi@exam ple.com', 'space in domain'],
      [`${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`, 'too long overall'],
      [`${'a'.repeat(65)}@example.com`, 'local part too long'],
      ['budi@localhost', 'single-label domain'],
      ['budi@exa_mple.com', 'bad domain character'],
      ['budi@-example.com', 'label starting with -'],
      ['budi@example..com', 'empty label'],
      ['budi@example.c0m', 'numeric top-level domain'],
      ['budi@@example.com', 'two @'],
      ['@example.com', 'empty local part'],
      ['budi@', 'empty domain'],
      ['', 'empty'],
    ])('email=%j (%s) is 400 invalid_email', async (email) => {
      const before = await countTransactions(t);
      expectError(await get(t, { amount: '10000', email }), 400, 'invalid_email', 'email');
      expect(await countTransactions(t)).toBe(before);
    });

    it('a valid email is stored and returned, with the domain lower-cased', async () => {
      const res = await get(t, { amount: '12000', email: 'Budi.Santoso+toko@Example.CO.ID' });
      expect(res.statusCode, res.body).toBe(200);
      const tx = res.json().data;
      expect(tx.email).toBe('Budi.Santoso+toko@example.co.id');
      const row = await t.deps.db
        .selectFrom('transactions')
        .select('email')
        .where('id', '=', tx.trxid)
        .executeTakeFirstOrThrow();
      expect(row.email).toBe('Budi.Santoso+toko@example.co.id');
    });
  });

  describe('expires_in', () => {
    it.each(['59', '0', '86401', '1e3', '60.0', ' 60', '-60', '+60', 'abc', '0x3c', '9999999999'])(
      'expires_in=%j is 400 invalid_parameter',
      async (expiresIn) => {
        expectError(await get(t, { amount: '10000', expires_in: expiresIn }), 400, 'invalid_parameter', 'expires_in');
      },
    );

    it.each([60, 600, 86400])('expires_in=%d sets expires_at that many seconds after created_at', async (seconds) => {
      const res = await get(t, { amount: '10000', expires_in: String(seconds) });
      expect(res.statusCode, res.body).toBe(200);
      const tx = res.json().data;
      expect(Date.parse(tx.expires_at) - Date.parse(tx.created_at)).toBe(seconds * 1000);
      expect(tx.created_at).toBe(iso(t.clock.ms));
    });

    it('defaults to 15 minutes', async () => {
      const tx = (await get(t, { amount: '10000' })).json().data;
      expect(Date.parse(tx.expires_at) - Date.parse(tx.created_at)).toBe(15 * 60 * 1000);
    });
  });

  describe('ref', () => {
    it('repeating a ref with the same amount returns the same transaction', async () => {
      const first = await get(t, { amount: '20000', ref: 'ORDER-1001' });
      expect(first.statusCode).toBe(200);
      const tx = first.json().data;
      expect(tx.ref).toBe('ORDER-1001');
      expect(first.headers['idempotent-replayed']).toBeUndefined();

      const again = await get(t, { amount: '20000', ref: 'ORDER-1001' });
      expect(again.statusCode).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json().data).toEqual(tx);

      const rows = await t.deps.db.selectFrom('transactions').select('id').where('ref', '=', 'ORDER-1001').execute();
      expect(rows).toHaveLength(1);
      const reservations = await t.deps.db
        .selectFrom('reserved_totals')
        .select('transaction_id')
        .where('total_amount', '=', tx.total_amount)
        .execute();
      expect(reservations.map((r) => r.transaction_id)).toEqual([tx.trxid]);
    });

    it('repeating a ref with another amount is 409 ref_conflict', async () => {
      const first = await get(t, { amount: '21000', ref: 'ORDER-1002' });
      expect(first.statusCode).toBe(200);
      const before = await countTransactions(t);
      expectError(await get(t, { amount: '21001', ref: 'ORDER-1002' }), 409, 'ref_conflict', 'ref');
      expectError(await postJson(t, { amount: 22000, ref: 'ORDER-1002' }), 409, 'ref_conflict', 'ref');
      expect(await countTransactions(t)).toBe(before);
    });

    it('refs are per mode and per merchant', async () => {
      const test = (await get(t, { amount: '23000', ref: 'ORDER-1003' })).json().data;
      const live = await get(t, { amount: '24000', ref: 'ORDER-1003' }, t.liveKey);
      expect(live.statusCode, live.body).toBe(200);
      expect(live.json().data.trxid).not.toBe(test.trxid);
      expect(live.json().data.mode).toBe('live');

      const other = await seedMerchant(t.deps, 1, 'Other Merchant');
      const theirs = await get(t, { amount: '25000', ref: 'ORDER-1003' }, other.testKey);
      expect(theirs.statusCode, theirs.body).toBe(200);
      expect(theirs.json().data.trxid).not.toBe(test.trxid);
    });

    it.each([' ORDER', 'ORDER ', 'a'.repeat(65), 'ordér'])('ref=%j is 400 invalid_parameter', async (ref) => {
      expectError(await get(t, { amount: '10000', ref }), 400, 'invalid_parameter', 'ref');
    });
  });

  describe('POST', () => {
    it('creates from a JSON body with 201', async () => {
      const res = await postJson(t, { amount: 30000, email: 'ani@example.com', ref: 'JSON-1', expires_in: 120 });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.headers['cache-control']).toBe('no-store');
      const tx = res.json().data;
      expect(res.json().success).toBe(true);
      expect(tx).toMatchObject({
        amount: 30000,
        email: 'ani@example.com',
        ref: 'JSON-1',
        status: 'pending',
        mode: 'test',
      });
      expect(Date.parse(tx.expires_at) - Date.parse(tx.created_at)).toBe(120_000);
      expect(parseQris(tx.qris).amount).toBe(tx.total_amount);
    });

    it('accepts the amount as a JSON string of digits', async () => {
      const res = await postJson(t, { amount: '31000.00' });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().data.amount).toBe(31000);
    });

    it.each([[-1], [10.5], [0], [1e7], [true], [[1000, 2000]], [{ v: 1 }], ['1,000']])(
      'rejects the JSON amount %j',
      async (amount) => {
        const res = await postJson(t, { amount });
        expect(res.statusCode, res.body).toBe(400);
        expect(['invalid_amount', 'amount_out_of_range']).toContain(res.json().error.code);
        expect(res.json().error.param).toBe('amount');
      },
    );

    it('without an amount in the body is 400 amount_required', async () => {
      expectError(await postJson(t, {}), 400, 'amount_required', 'amount');
      expectError(await postJson(t, { email: 'ani@example.com' }), 400, 'amount_required', 'amount');
    });

    it('creates from a form body with 201', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: CQRIS,
        headers: { 'x-api-key': t.testKey, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'amount=32000&email=citra%40example.com&ref=FORM-1&expires_in=300',
      });
      expect(res.statusCode, res.body).toBe(201);
      const tx = res.json().data;
      expect(tx).toMatchObject({ amount: 32000, email: 'citra@example.com', ref: 'FORM-1' });
      expect(Date.parse(tx.expires_at) - Date.parse(tx.created_at)).toBe(300_000);
    });

    it('validates form bodies like query strings', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: CQRIS,
        headers: { 'x-api-key': t.testKey, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'amount=1.000',
      });
      expectError(res, 400, 'invalid_amount', 'amount');
    });

    it('a repeated amount in a form body is 400 invalid_amount, as in the query string', async () => {
      const before = await countTransactions(t);
      for (const payload of ['amount=1&amount=2', 'amount=1000&amount=1000']) {
        const res = await t.app.inject({
          method: 'POST',
          url: CQRIS,
          headers: { 'x-api-key': t.testKey, 'content-type': 'application/x-www-form-urlencoded' },
          payload,
        });
        expectError(res, 400, 'invalid_amount', 'amount');
      }
      expect(await countTransactions(t)).toBe(before);
    });

    it('a form field named __proto__ is just an ignored field', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: CQRIS,
        headers: { 'x-api-key': t.testKey, 'content-type': 'application/x-www-form-urlencoded' },
        payload: '__proto__=x&amount=1500',
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().data.amount).toBe(1500);
    });

    it('replays a request with the same Idempotency-Key and body', async () => {
      const body = { amount: 33000, email: 'dewi@example.com' };
      const first = await postJson(t, body, { 'idempotency-key': 'idem-0001' });
      expect(first.statusCode, first.body).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const tx = first.json().data;
      const before = await countTransactions(t);

      const second = await postJson(t, body, { 'idempotency-key': 'idem-0001' });
      expect(second.statusCode).toBe(200);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.json().data).toEqual(tx);
      expect(await countTransactions(t)).toBe(before);

      // A replay by form body with the same content is the same request.
      const form = await t.app.inject({
        method: 'POST',
        url: CQRIS,
        headers: {
          'x-api-key': t.testKey,
          'content-type': 'application/x-www-form-urlencoded',
          'idempotency-key': 'idem-0001',
        },
        payload: 'amount=33000&email=dewi%40example.com',
      });
      expect(form.statusCode, form.body).toBe(200);
      expect(form.json().data.trxid).toBe(tx.trxid);
    });

    it('reusing an Idempotency-Key with a different body is 409 idempotency_key_reused', async () => {
      const first = await postJson(t, { amount: 34000 }, { 'idempotency-key': 'idem-0002' });
      expect(first.statusCode).toBe(201);
      const before = await countTransactions(t);
      expectError(
        await postJson(t, { amount: 34001 }, { 'idempotency-key': 'idem-0002' }),
        409,
        'idempotency_key_reused',
        'Idempotency-Key',
      );
      expectError(
        await postJson(t, { amount: 34000, email: 'x@example.com' }, { 'idempotency-key': 'idem-0002' }),
        409,
        'idempotency_key_reused',
        'Idempotency-Key',
      );
      expect(await countTransactions(t)).toBe(before);
    });

    it('distinct Idempotency-Keys create distinct transactions', async () => {
      const a = (await postJson(t, { amount: 35000 }, { 'idempotency-key': 'idem-a' })).json().data;
      const b = (await postJson(t, { amount: 35000 }, { 'idempotency-key': 'idem-b' })).json().data;
      expect(a.trxid).not.toBe(b.trxid);
      expect(a.total_amount).not.toBe(b.total_amount);
    });

    it('concurrent requests with one Idempotency-Key create one transaction', async () => {
      const before = await countTransactions(t);
      const results = await Promise.all(
        [0, 1, 2, 3].map(() => postJson(t, { amount: 36000 }, { 'idempotency-key': 'idem-race' })),
      );
      const ids = new Set(results.map((r) => r.json().data?.trxid));
      expect(ids.size).toBe(1);
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 201]);
      expect(await countTransactions(t)).toBe(before + 1);
    });

    it('malformed JSON is 400 invalid_body', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: CQRIS,
        headers: { 'x-api-key': t.testKey, 'content-type': 'application/json' },
        payload: '{"amount": 10000',
      });
      expectError(res, 400, 'invalid_body');
    });

    it('a JSON body that is not an object is 400 invalid_body', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: CQRIS,
        headers: { 'x-api-key': t.testKey, 'content-type': 'application/json' },
        payload: '[10000]',
      });
      expectError(res, 400, 'invalid_body');
    });

    it('an unsupported content type is 415 unsupported_media_type', async () => {
      const before = await countTransactions(t);
      const res = await t.app.inject({
        method: 'POST',
        url: CQRIS,
        headers: { 'x-api-key': t.testKey, 'content-type': 'application/xml' },
        payload: '<amount>10000</amount>',
      });
      expectError(res, 415, 'unsupported_media_type');
      expect(await countTransactions(t)).toBe(before);
    });
  });

  describe('QR images', () => {
    it('qr_image=inline adds a PNG data URL that scans to the qris', async () => {
      const res = await get(t, { amount: '40000', qr_image: 'inline' });
      expect(res.statusCode).toBe(200);
      const tx = res.json().data;
      expect(tx.qr_image.startsWith('data:image/png;base64,')).toBe(true);
      const png = Buffer.from(tx.qr_image.slice('data:image/png;base64,'.length), 'base64');
      expect(decodePngBuffer(png)).toBe(tx.qris);
    });

    it('qr_image=inline also works on POST', async () => {
      const res = await postJson(t, { amount: 41000, qr_image: 'inline' });
      expect(res.statusCode).toBe(201);
      const tx = res.json().data;
      const png = Buffer.from(tx.qr_image.slice('data:image/png;base64,'.length), 'base64');
      expect(decodePngBuffer(png)).toBe(tx.qris);
    });

    it('qr_image with an unknown value is 400 invalid_parameter', async () => {
      expectError(await get(t, { amount: '40000', qr_image: 'base64' }), 400, 'invalid_parameter', 'qr_image');
    });

    it('serves the PNG and the SVG of an existing transaction without a key', async () => {
      const tx = (await get(t, { amount: '42000' })).json().data;
      const pngPath = tx.qr_image_url.slice(BASE.length);
      const png = await t.app.inject({ url: pngPath });
      expect(png.statusCode).toBe(200);
      expect(png.headers['content-type']).toBe('image/png');
      expect(decodePngBuffer(png.rawPayload)).toBe(tx.qris);

      const svg = await t.app.inject({ url: tx.qr_image_svg_url.slice(BASE.length) });
      expect(svg.statusCode).toBe(200);
      expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
      expect(svg.body).toMatch(/^<svg[\s>]/);
      expect(svg.body).toContain('</svg>');

      // The doubled prefix serves them too.
      const doubled = await t.app.inject({ url: `/api${pngPath}` });
      expect(doubled.statusCode).toBe(200);
      expect(doubled.headers['content-type']).toBe('image/png');
    });

    it('an unknown trxid is a JSON 404 for both images', async () => {
      for (const ext of ['png', 'svg']) {
        const res = await t.app.inject({ url: `/api/payment-gateway/qr/trx_${'A'.repeat(22)}.${ext}` });
        expectError(res, 404, 'transaction_not_found', 'trxid');
      }
      expectError(await t.app.inject({ url: `/api/payment-gateway/qr/not-a-trx.png` }), 404, 'not_found');
      const tx = (await get(t, { amount: '43000' })).json().data;
      expectError(await t.app.inject({ url: `/api/payment-gateway/qr/${tx.trxid}.gif` }), 404, 'not_found');
    });
  });

  describe('keys', () => {
    it('a live key creates live transactions', async () => {
      const res = await get(t, { amount: '50000' }, t.liveKey);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.mode).toBe('live');
    });

    // Without a key: moved to route-common.test.ts.
    it('with an unknown key is 401', async () => {
      expectError(await get(t, { amount: '1000' }, `sk_test_${'x'.repeat(40)}`), 401, 'invalid_api_key');
    });
  });
});

describe('unique codes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  // 999 creates and more: seconds on an idle machine, past the default 30 s on a loaded CI host (PostgreSQL).
  it('gives a Rp100.000 sale 999 distinct totals, then 503 unique_code_exhausted until the reservations end', async () => {
    // Rp100.000 and up get every code up to UNIQUE_CODE_MAX; smaller prices fewer (the next test).
    const amount = 100000;
    const txs: Array<{ trxid: string; unique_code: number; total_amount: number }> = [];
    for (let i = 0; i < 999; i++) {
      const res = await get(t, { amount: String(amount) });
      if (res.statusCode !== 200) throw new Error(`create ${i + 1} failed: ${res.body}`);
      txs.push(res.json().data);
    }
    const codes = new Set(txs.map((tx) => tx.unique_code));
    const totals = new Set(txs.map((tx) => tx.total_amount));
    expect(codes.size).toBe(999);
    expect(totals.size).toBe(999);
    expect(Math.min(...codes)).toBe(1);
    expect(Math.max(...codes)).toBe(999);
    for (const tx of txs) expect(tx.total_amount).toBe(amount + tx.unique_code);

    // Transaction ids: the documented shape and never repeated.
    for (const tx of txs) expect(tx.trxid).toMatch(TRXID);
    expect(new Set(txs.map((tx) => tx.trxid)).size).toBe(999);

    const full = await get(t, { amount: String(amount) });
    expectError(full, 503, 'unique_code_exhausted');
    const retryAfter = Number(full.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);

    // Uniqueness is over totals: 100001 may only take the one total 100000 has left, 101000.
    const neighbour = await get(t, { amount: '100001' });
    expect(neighbour.statusCode, neighbour.body).toBe(200);
    expect(neighbour.json().data.unique_code).toBe(999);
    expect(neighbour.json().data.total_amount).toBe(101000);

    // The live mode has its own totals.
    const live = await get(t, { amount: String(amount) }, t.liveKey);
    expect(live.statusCode, live.body).toBe(200);
    expect(live.json().data.mode).toBe('live');

    // So does another merchant.
    const other = await seedMerchant(t.deps, 1, 'Second Merchant');
    expect((await get(t, { amount: String(amount) }, other.testKey)).statusCode).toBe(200);

    // Past expiry but inside the grace period the totals stay reserved.
    t.clock.advance(15 * 60 * 1000 + 1);
    expectError(await get(t, { amount: String(amount) }), 503, 'unique_code_exhausted');

    // After expiry + RESERVATION_GRACE_SECONDS they are free again.
    t.clock.advance(t.config.reservationGraceSeconds * 1000);
    const reused = await get(t, { amount: String(amount) });
    expect(reused.statusCode, reused.body).toBe(200);
    const tx = reused.json().data;
    expect(tx.total_amount).toBe(amount + tx.unique_code);
    const holder = await t.deps.db
      .selectFrom('reserved_totals')
      .selectAll()
      .where('merchant_id', '=', t.merchant.id)
      .where('mode', '=', 'test')
      .where('total_amount', '=', tx.total_amount)
      .executeTakeFirstOrThrow();
    expect(holder.transaction_id).toBe(tx.trxid);
  }, 120_000);
});

describe('unique codes scale with the price', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('a Rp7.500 sale gets at most Rp99 and exhausts after 99 creates; Rp50.000 gets at most Rp500', async () => {
    const codes = new Set<number>();
    for (let i = 0; i < 99; i++) {
      const res = await get(t, { amount: '7500' });
      expect(res.statusCode, res.body).toBe(200);
      codes.add(res.json().data.unique_code);
    }
    expect([...codes].sort((a, b) => a - b)).toEqual(Array.from({ length: 99 }, (_, i) => i + 1));
    expectError(await get(t, { amount: '7500' }), 503, 'unique_code_exhausted');
    for (let i = 0; i < 40; i++) {
      const res = await get(t, { amount: '50000' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.unique_code).toBeLessThanOrEqual(500);
    }
  });
});

describe('unique codes with a small range', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ UNIQUE_CODE_MAX: '20', RESERVATION_GRACE_SECONDS: '60' });
  });
  afterAll(async () => t.close());

  it('exhausts at 20 + 1 with an exact Retry-After, and frees the codes exactly at expiry + grace', async () => {
    const start = t.clock.ms;
    const totals = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const res = await get(t, { amount: '5000' });
      expect(res.statusCode, res.body).toBe(200);
      totals.add(res.json().data.total_amount);
    }
    expect([...totals].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 5001 + i));

    const full = await get(t, { amount: '5000' });
    expectError(full, 503, 'unique_code_exhausted');
    // Reserved until created + 900 s TTL + 60 s grace.
    expect(full.headers['retry-after']).toBe('960');
    expect(await countTransactions(t)).toBe(20);

    t.clock.ms = start + 960_000 - 1;
    const stillHeld = await get(t, { amount: '5000' });
    expectError(stillHeld, 503, 'unique_code_exhausted');
    expect(stillHeld.headers['retry-after']).toBe('1');

    t.clock.ms = start + 960_000;
    const freed = await get(t, { amount: '5000' });
    expect(freed.statusCode, freed.body).toBe(200);
    expect(totals.has(freed.json().data.total_amount)).toBe(true);
  });

  it('an amount whose room under the maximum is smaller than the range uses only the codes that fit', async () => {
    const codes = new Set<number>();
    for (let i = 0; i < 5; i++) {
      const res = await get(t, { amount: '9999995' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.total_amount).toBeLessThanOrEqual(10_000_000);
      codes.add(res.json().data.unique_code);
    }
    expect([...codes].sort()).toEqual([1, 2, 3, 4, 5]);
    expectError(await get(t, { amount: '9999995' }), 503, 'unique_code_exhausted');
  });
});

describe('QRIS payload against the fixture vectors', () => {
  let t: TestApp;
  beforeAll(async () => {
    // One fixed code makes the total predictable: 10000 + 123 = 10123, a fixture case.
    t = await createTestApp({ UNIQUE_CODE_MIN: '123', UNIQUE_CODE_MAX: '123' });
  });
  afterAll(async () => t.close());

  it.each([0, 1, 2])('the dynamic code of merchant vector %d is byte for byte the expected one', async (index) => {
    const key = index === 0 ? t.testKey : (await seedMerchant(t.deps, index, `Vector ${index}`)).testKey;
    const res = await get(t, { amount: '10000' }, key);
    expect(res.statusCode, res.body).toBe(200);
    const tx = res.json().data;
    expect(tx.unique_code).toBe(123);
    expect(tx.total_amount).toBe(10123);
    const expected = vectors.vectors[index]!.cases.find((c) => c.amount === 10123)!.dynamic;
    expect(tx.qris).toBe(expected);
  });

  it('an amount with no room for the smallest code is 400 amount_out_of_range', async () => {
    expectError(await get(t, { amount: '9999900' }), 400, 'amount_out_of_range', 'amount');
  });
});
