// The bank-mutation kinds (issue 36, section 2) over real HTTP: Moota, Mutasibank and Cekmutasi, each
// posted in its service's shape (copied from the services' public integrations into these fixtures).
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { cli, createLive, footprint, listen, status, wib } from '../../helpers/payment-sources.js';

let t: TestApp;
let base: string;
let amount = 61_000;
let nextId = 0;

beforeAll(async () => {
  t = await createTestApp();
  base = await listen(t);
});
afterAll(async () => t.close());

const hmac = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');
const unix = () => Math.floor(t.clock.now() / 1000);

interface MutationFixture {
  id: string;
  amount: number | string;
  credit?: boolean;
  /** Epoch ms of the mutation; now by default. */
  at?: number;
}

/** How each service writes a post and signs it. */
interface Service {
  type: 'moota' | 'mutasibank' | 'cekmutasi';
  body(mutations: MutationFixture[]): string;
  headers(body: string, secret: string): Record<string, string>;
}

const services: Service[] = [
  {
    type: 'moota',
    body: (ms) =>
      JSON.stringify(
        ms.map((m) => ({
          account_number: '1234567890',
          date: wib(m.at ?? t.clock.now()),
          description: 'TRSF E-BANKING CR 2811/FTSCY/WS95031',
          note: '',
          amount: m.amount,
          type: m.credit === false ? 'DB' : 'CR',
          balance: 5_000_000,
          updated_at: wib(t.clock.now()),
          created_at: wib(t.clock.now()),
          mutation_id: m.id,
          token: 'abc',
          bank_id: 'Vn8ZlbEnGw1',
          bank_type: 'qris',
          bank: { bank_type: 'qris', atas_nama: 'TOKO BUDI', account_number: '1234567890' },
        })),
      ),
    headers: (body, secret) => ({ Signature: hmac(secret, body) }),
  },
  {
    type: 'mutasibank',
    body: (ms) =>
      JSON.stringify({
        api_key: 'the-merchants-api-token',
        account_id: 10,
        module: 'bca',
        account_name: 'Budi Santoso',
        account_number: '12341123455',
        balance: 12_720_562,
        data_mutasi: ms.map((m) => ({
          id: m.id,
          transaction_date: wib(m.at ?? t.clock.now()),
          description: 'PRMA CR Transfer 1270007989179',
          type: m.credit === false ? 'DB' : 'CR',
          amount: m.amount,
          balance: 0,
        })),
      }),
    headers: (body, secret) => ({
      'X-Mutasibank-Signature': hmac(secret, body),
      'X-Mutasibank-Timestamp': String(unix()),
      'X-Mutasibank-Webhook-Id': 'wh_123',
    }),
  },
  {
    type: 'cekmutasi',
    body: (ms) =>
      JSON.stringify({
        action: 'payment_report',
        content: {
          service_name: 'Bank Central Asia',
          service_code: 'bca',
          account_number: '1234567890',
          account_name: 'BUDI SANTOSO',
          data: ms.map((m) => ({
            id: m.id,
            unix_timestamp: Math.floor((m.at ?? t.clock.now()) / 1000),
            type: m.credit === false ? 'debit' : 'credit',
            amount: typeof m.amount === 'number' ? `${m.amount}.00` : m.amount,
            description: 'TRSF E-BANKING CR',
            balance: '5000000.00',
          })),
        },
      }),
    headers: (_body, secret) => ({ 'API-SIGNATURE': secret }),
  },
];

async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, body: await res.json() };
}

describe('source add for the mutation services', () => {
  it('takes the secret set at the service and prints exactly id and url', async () => {
    for (const type of ['moota', 'mutasibank', 'cekmutasi']) {
      const created = await cli(t, [
        'source',
        'add',
        '--merchant',
        t.merchant.id,
        '--type',
        type,
        '--secret',
        'a-secret-of-mine',
        '--json',
      ]);
      expect(created.code, created.stdout + created.stderr).toBe(0);
      expect(Object.keys(created.json!).sort()).toEqual(['id', 'url']);
      expect(created.json!.url).toBe(`/api/payment-sources/${created.json!.id}/events`);
    }
  });

  it('refuses a missing or unusable secret, storing nothing', async () => {
    const sources = async () => (await t.deps.db.selectFrom('payment_sources').select('id').execute()).length;
    const before = await sources();
    for (const secret of [null, 'short', 'has a space in it']) {
      const args = ['source', 'add', '--merchant', t.merchant.id, '--type', 'moota', '--json'];
      const created = await cli(t, secret === null ? args : [...args, '--secret', secret]);
      expect(created.code).not.toBe(0);
      expect(created.json).toMatchObject({ error: { code: 'invalid_parameter', param: 'secret' } });
    }
    expect(await sources()).toBe(before);
  });
});

describe.each(services)('$type source', (service) => {
  const secret = `sekret-${service.type}-0123456789`;
  let url: string;
  beforeAll(async () => {
    const created = await cli(t, [
      'source',
      'add',
      '--merchant',
      t.merchant.id,
      '--type',
      service.type,
      '--secret',
      secret,
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    url = created.json!.url as string;
  });

  const send = (mutations: MutationFixture[], headers?: (body: string) => Record<string, string>) => {
    const body = service.body(mutations);
    return post(url, body, headers ? headers(body) : service.headers(body, secret));
  };
  const id = () => `${service.type}-${++nextId}`;

  async function refused(res: Promise<{ status: number; body: any }>, code: number, error: string): Promise<void> {
    const before = await footprint(t);
    const r = await res;
    expect(r.status, JSON.stringify(r.body)).toBe(code);
    expect(r.body).toMatchObject({ success: false, error: { code: error } });
    expect(await footprint(t)).toEqual(before);
  }

  it('a signed credit pays a pending transaction; a retry of the post is a duplicate', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    const mutation = { id: id(), amount: tx.total_amount };
    const res = await send([mutation]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: [
        {
          id: mutation.id,
          status: 'matched',
          payment_id: expect.stringMatching(/^pay_/),
          trxid: tx.trxid,
          reason: null,
        },
      ],
    });
    expect(await status(base, t.liveKey, tx.trxid)).toMatchObject({
      status: 'paid',
      payment: { id: res.body.data[0].payment_id, amount: tx.total_amount },
    });

    const before = await footprint(t);
    const again = await send([mutation]);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual([
      { id: mutation.id, status: 'duplicate', payment_id: res.body.data[0].payment_id, trxid: tx.trxid, reason: null },
    ]);
    expect(await footprint(t)).toEqual(before);
  });

  it('the same post sent twice at once is one payment', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    const mutation = { id: id(), amount: tx.total_amount };
    const answers = await Promise.all([send([mutation]), send([mutation])]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers.map((a) => a.body.data[0].status).sort()).toEqual(['duplicate', 'matched']);
    expect(answers[0]!.body.data[0].payment_id).toBe(answers[1]!.body.data[0].payment_id);
    expect(
      (await t.deps.db.selectFrom('payments').select('id').where('transaction_id', '=', tx.trxid).execute()).length,
    ).toBe(1);
  });

  it('records each mutation of a post separately; a debit is not a payment', async () => {
    const a = await createLive(base, t.liveKey, ++amount);
    const b = await createLive(base, t.liveKey, ++amount);
    const before = await footprint(t);
    const res = await send([
      { id: id(), amount: a.total_amount },
      { id: id(), amount: 5_000, credit: false },
      { id: id(), amount: b.total_amount },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: any) => r.status)).toEqual(['matched', 'ignored', 'matched']);
    expect(res.body.data[1].reason).toBe('not_a_credit');
    expect((await footprint(t)).payments).toBe(before.payments + 2);
    expect((await status(base, t.liveKey, a.trxid)).status).toBe('paid');
    expect((await status(base, t.liveKey, b.trxid)).status).toBe('paid');
  });

  it('reads a decimal-string amount as whole rupiah and refuses a fraction rather than rounding it', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    const before = await footprint(t);
    const res = await send([
      { id: id(), amount: `${tx.total_amount}.50` },
      { id: id(), amount: `${tx.total_amount}.00` },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toMatchObject({ status: 'ignored', reason: 'not_whole_rupiah' });
    expect(res.body.data[1]).toMatchObject({ status: 'matched', trxid: tx.trxid });
    expect((await footprint(t)).payments).toBe(before.payments + 1);
  });

  it('a missing signature is 401 and stores nothing', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    await refused(
      send([{ id: id(), amount: tx.total_amount }], () => ({})),
      401,
      'invalid_signature',
    );
    expect((await status(base, t.liveKey, tx.trxid)).status).toBe('pending');
  });

  it('a post signed with another secret is 401 and stores nothing', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    await refused(
      send([{ id: id(), amount: tx.total_amount }], (body) => service.headers(body, `${secret}x`)),
      401,
      'invalid_signature',
    );
    expect((await status(base, t.liveKey, tx.trxid)).status).toBe('pending');
  });

  it('a changed body under the original signature is 401', async () => {
    const body = service.body([{ id: id(), amount: 1_000 }]);
    const headers = service.headers(body, secret);
    // Cekmutasi's header is the secret itself, not a digest of the body: only the secret is checked.
    if (service.type === 'cekmutasi') return;
    await refused(post(url, body.replace('1000', '9000'), headers), 401, 'invalid_signature');
  });

  it('a signed post that is not the service’s shape is 400 invalid_body and stores nothing', async () => {
    for (const body of ['not json', '{"unexpected": true}', service.body([{ id: '', amount: 1000 }])]) {
      await refused(post(url, body, service.headers(body, secret)), 400, 'invalid_body');
    }
  });
});

describe('service specifics', () => {
  const secret = 'the-services-secret-42';
  const urls: Record<string, string> = {};
  beforeAll(async () => {
    for (const type of ['moota', 'mutasibank']) {
      const created = await cli(t, [
        'source',
        'add',
        '--merchant',
        t.merchant.id,
        '--type',
        type,
        '--secret',
        secret,
        '--json',
      ]);
      urls[type] = created.json!.url as string;
    }
  });

  it('Moota: X-Moota-Signature is accepted as well as Signature', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    const body = services[0]!.body([{ id: `moota-x-${++nextId}`, amount: tx.total_amount }]);
    const res = await post(urls.moota!, body, { 'X-Moota-Signature': hmac(secret, body) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await status(base, t.liveKey, tx.trxid)).status).toBe('paid');
  });

  it('Moota: a signature equal to the secret (the SDK’s mistake) is refused', async () => {
    const body = services[0]!.body([{ id: `moota-y-${++nextId}`, amount: 1_000 }]);
    const before = await footprint(t);
    const res = await post(urls.moota!, body, { Signature: secret });
    expect(res.status).toBe(401);
    expect(await footprint(t)).toEqual(before);
  });

  it('Mutasibank: a timestamp more than 5 minutes off is 401, a signature alone is not enough', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    const body = services[1]!.body([{ id: `mb-${++nextId}`, amount: tx.total_amount }]);
    const before = await footprint(t);
    for (const ts of [unix() - 301, unix() + 301]) {
      const res = await post(urls.mutasibank!, body, {
        'X-Mutasibank-Signature': hmac(secret, body),
        'X-Mutasibank-Timestamp': String(ts),
      });
      expect(res.status).toBe(401);
    }
    const res = await post(urls.mutasibank!, body, { 'X-Mutasibank-Signature': hmac(secret, body) });
    expect(res.status).toBe(401);
    expect(await footprint(t)).toEqual(before);
    const ok = await post(urls.mutasibank!, body, {
      'X-Mutasibank-Signature': hmac(secret, body),
      'X-Mutasibank-Timestamp': String(unix() - 200),
    });
    expect(ok.status).toBe(200);
    expect((await status(base, t.liveKey, tx.trxid)).status).toBe('paid');
  });

  it('Mutasibank: the api_key of the body is not kept with the payment', async () => {
    const rows = await t.deps.db
      .selectFrom('payments')
      .select('raw')
      .where('merchant_id', '=', t.merchant.id)
      .execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.raw ?? '').not.toContain('the-merchants-api-token');
  });
});
