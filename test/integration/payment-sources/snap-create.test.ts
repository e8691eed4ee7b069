import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/domain/errors.js';
import { parseQris } from '../../../src/domain/qris/index.js';
import { parseSnapConfig } from '../../../src/payment-sources/snap/config.js';
import { addSnapSource } from '../../../src/payment-sources/snap/setup.js';
import { seedMerchant } from '../../helpers/context.js';
import { startSnapWorld, type SnapWorld } from '../../helpers/snap.js';

let w: SnapWorld;
beforeAll(async () => {
  w = await startSnapWorld();
});
afterAll(async () => w.close());

describe('cqris for a merchant with a SNAP source', () => {
  it("returns the acquirer's qrContent and stores its referenceNo, with no unique code", async () => {
    const res = await w.cqris({ amount: '25000' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const tx = res.body.data;
    const code = w.sim.code(tx.trxid)!;
    expect(code).toBeDefined();
    expect(tx.qris).toBe(code.qrContent);
    expect(tx.unique_code).toBe(0);
    expect(tx.total_amount).toBe(25_000);
    const parsed = parseQris(tx.qris);
    expect(parsed.initiation).toBe('dynamic');
    expect(parsed.amount).toBe(25_000);
    expect(parsed.fields.find((f) => f.tag === '62')?.children?.find((c) => c.tag === '05')?.value).toBe(
      code.referenceNo,
    );

    const row = await w.t.deps.db
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', tx.trxid)
      .executeTakeFirstOrThrow();
    expect(row.acquirer_reference).toBe(code.referenceNo);
    expect(row.source_id).toBe(w.sourceId);
    const reserved = await w.t.deps.db
      .selectFrom('reserved_totals')
      .selectAll()
      .where('transaction_id', '=', tx.trxid)
      .execute();
    expect(reserved).toEqual([]);
    const poll = await w.t.deps.db
      .selectFrom('snap_polls')
      .selectAll()
      .where('transaction_id', '=', tx.trxid)
      .executeTakeFirstOrThrow();
    expect(poll.source_id).toBe(w.sourceId);
    expect(poll.next_poll_at).toBe(row.created_at + 5000);
  });

  it('takes one access token for many calls, concurrent ones included', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => w.cqris()));
    for (const r of results) expect(r.status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await w.cqris()).status).toBe(200);
    // The first test took the token; these 12 creates reuse it.
    expect(w.sim.counts.token).toBe(1);
  });

  it('renews a token the acquirer stopped accepting, once, without failing the call', async () => {
    w.sim.revokeTokens();
    const before = w.sim.counts.token;
    expect((await w.cqris()).status).toBe(200);
    expect(w.sim.counts.token).toBe(before + 1);
  });

  it('replays a repeated ref without asking the acquirer again', async () => {
    const first = await w.cqris({ amount: '30000', ref: 'order-snap-1' });
    const generates = w.sim.counts.generate;
    const again = await w.cqris({ amount: '30000', ref: 'order-snap-1' });
    expect(again.body.data.trxid).toBe(first.body.data.trxid);
    expect(w.sim.counts.generate).toBe(generates);
  });

  it('turns acquirer failures into clear errors and stores nothing', async () => {
    const count = async () => (await w.t.deps.db.selectFrom('transactions').select('id').execute()).length;
    const before = await count();
    w.sim.failNext.generate = 503;
    const down = await w.cqris();
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('acquirer_unavailable');
    expect(down.headers.get('retry-after')).toBe('5');
    w.sim.failNext.generate = 400;
    const refused = await w.cqris();
    expect(refused.status).toBe(502);
    expect(refused.body.error.code).toBe('acquirer_error');
    expect(refused.body.error.message).toContain('4004700');
    expect(await count()).toBe(before);
  });

  it('keeps the static-to-dynamic path for a merchant without a SNAP source', async () => {
    const other = await seedMerchant(w.t.deps, 1, 'Static Merchant');
    const generates = w.sim.counts.generate;
    const res = await w.cqris({ amount: '10000' }, other.liveKey);
    expect(res.status).toBe(200);
    expect(res.body.data.unique_code).toBeGreaterThan(0);
    expect(res.body.data.total_amount).toBe(10_000 + res.body.data.unique_code);
    expect(w.sim.counts.generate).toBe(generates);
  });

  it('answers 503 acquirer_unavailable when the acquirer is unreachable', async () => {
    const other = await seedMerchant(w.t.deps, 2, 'Unreachable Acquirer');
    const config = { ...w.config, baseUrl: 'http://127.0.0.1:9' };
    await addSnapSource(w.t.deps, other.merchant.id, config);
    const res = await w.cqris({}, other.liveKey);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('acquirer_unavailable');
  });
});

describe('SNAP source configuration', () => {
  const problem = (config: unknown): AppError => {
    try {
      parseSnapConfig(config);
    } catch (err) {
      if (err instanceof AppError) return err;
      throw err;
    }
    throw new Error('accepted');
  };

  it('fills defaults', () => {
    const c = parseSnapConfig(w.config);
    expect(c.notifyPath).toBe('/snap/v1.0/qr/qr-mpm-notify');
    expect(c.timestampWindowSeconds).toBe(300);
    expect(c.signatureEncoding).toBe('base64');
    expect(c.pathPrefix).toBe('');
  });

  it.each([
    [{ baseUrl: 'not a url' }, 'baseUrl', 'not a URL'],
    [{ baseUrl: 'ftp://x.test' }, 'baseUrl', 'http(s)'],
    [{ privateKeyPem: 'hello' }, 'privateKeyPem', 'PEM'],
    [{ privateKeyPem: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' }, 'privateKeyPem', 'readable'],
    [{ acquirerPublicKeyPem: undefined }, 'acquirerPublicKeyPem', 'required'],
    [{ clientSecret: '' }, 'clientSecret', 'required'],
    [{ notifyVerification: 'none' }, 'notifyVerification', '"asymmetric"'],
    [{ signatureEncoding: 'base32' }, 'signatureEncoding', '"hex"'],
    [{ notifyPath: '/api/notify' }, 'notifyPath', '/snap/'],
    [{ notifyPath: 'snap/x' }, 'notifyPath', 'path'],
    [{ statusMap: { '2': 'paid' } }, 'statusMap', '2-digit'],
    [{ statusMap: { '02': 'done' } }, 'statusMap', 'paid, pending'],
    [{ timestampWindowSeconds: 0 }, 'timestampWindowSeconds', 'whole number'],
    [{ clientSecert: 'typo' }, 'clientSecert', 'not a SNAP config field'],
    [{ partnerId: 'a\nb' }, 'partnerId', 'HTTP header'],
  ])('rejects %j naming %s', (change, param, message) => {
    const err = problem({ ...w.config, ...change });
    expect(err.code).toBe('invalid_parameter');
    expect(err.param).toBe(param);
    expect(err.message).toContain(message);
  });

  it('rejects keys that are not RSA or too short', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    expect(problem({ ...w.config, privateKeyPem: ec }).message).toContain('RSA');
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .publicKey.export({ type: 'spki', format: 'pem' })
      .toString();
    expect(problem({ ...w.config, acquirerPublicKeyPem: small }).message).toContain('2048');
  });

  it('addSnapSource stores the validated config and refuses an unknown merchant', async () => {
    await expect(addSnapSource(w.t.deps, 'mch_nope', w.config)).rejects.toMatchObject({ code: 'merchant_not_found' });
    const row = await w.t.deps.db
      .selectFrom('payment_sources')
      .selectAll()
      .where('id', '=', w.sourceId)
      .executeTakeFirstOrThrow();
    expect(row.type).toBe('snap');
    expect(row.enabled).toBe(1);
    expect(JSON.parse(row.config).notifyPath).toBe('/snap/v1.0/qr/qr-mpm-notify');
  });
});
