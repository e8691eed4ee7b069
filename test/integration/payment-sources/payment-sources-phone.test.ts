// issue 36, sections 1 and 4: a phone source over real HTTP. Every way a forwarder can prove who it is,
// refusals that store nothing, duplicates, grouped notifications, non-payments, rotation and `dev notify`.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../../src/payment-sources/webhook/signature.js';
import { NOTIFICATIONS_KEPT, recordNotification } from '../../../src/services/sources/record-notification.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { cli, createLive, footprint, listen, status } from '../../helpers/payment-sources.js';
import { dotted } from '../../helpers/rupiah.js';

let t: TestApp;
let base: string;
let source: { id: string; url: string; token: string; secret: string };
let other: { id: string; url: string; token: string; secret: string };
let amount = 61_000;

beforeAll(async () => {
  t = await createTestApp({}, { captureLogs: true });
  base = await listen(t);
  const created = await cli(t, ['source', 'add', '--merchant', t.merchant.id, '--type', 'phone', '--json']);
  expect(created.code, created.stdout + created.stderr).toBe(0);
  source = created.json as typeof source;
  other = (await cli(t, ['source', 'add', '--merchant', t.merchant.id, '--type', 'phone', '--json']))
    .json as typeof other;
});
afterAll(async () => t.close());

type Auth =
  | 'x-signature'
  | 'signature'
  | 'bearer'
  | 'query'
  | 'none'
  | { header: Record<string, string>; query?: string };

async function post(
  body: string,
  auth: Auth = 'x-signature',
  options: { contentType?: string; to?: typeof source } = {},
) {
  const to = options.to ?? source;
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json' };
  let url = `${base}${to.url}`;
  if (auth === 'x-signature') headers['x-signature'] = createHmac('sha256', to.secret).update(body).digest('hex');
  else if (auth === 'signature')
    headers['x-signature'] = signPayload(to.secret, body, Math.floor(t.clock.now() / 1000));
  else if (auth === 'bearer') headers.authorization = `Bearer ${to.token}`;
  else if (auth === 'query') url += `?token=${to.token}`;
  else if (auth !== 'none') {
    Object.assign(headers, auth.header);
    if (auth.query) url += `?token=${auth.query}`;
  }
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as any };
}

const notification = (text: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ from: 'Pembayaran QRIS diterima!', text, timestamp: String(t.clock.now()), ...extra });
const gopayLine = (n: number, id: string) => `Rp${dotted(n)} berhasil diterima. ID transaksi: ${id}`;

async function notificationRows(sourceId = source.id) {
  return t.deps.db
    .selectFrom('source_notifications')
    .selectAll()
    .where('source_id', '=', sourceId)
    .orderBy('received_at', 'desc')
    .execute();
}

describe('phone source', () => {
  it('source add --json prints exactly id, url, token and secret', () => {
    expect(Object.keys(source).sort()).toEqual(['id', 'secret', 'token', 'url']);
    expect(source.url).toBe(`/api/payment-sources/${source.id}/events`);
    expect(source.token.length).toBeGreaterThanOrEqual(32);
    expect(source.secret.length).toBeGreaterThanOrEqual(32);
    expect(source.token).not.toBe(other.token);
  });

  it('accepts each way of proving the sender, and pays a pending transaction', async () => {
    for (const auth of ['x-signature', 'signature', 'bearer', 'query'] as const) {
      const tx = await createLive(base, t.liveKey, ++amount);
      const res = await post(
        notification(`Kamu berhasil menerima Rp${tx.total_amount} via Gopay ke akunmu. Cek yuk!`, {
          package: 'id.dana',
        }),
        auth,
      );
      expect(res.status, `${auth}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.data.results).toEqual([
        {
          outcome: 'matched',
          reason: null,
          payment_id: expect.stringMatching(/^pay_/),
          trxid: tx.trxid,
          amount: tx.total_amount,
        },
      ]);
      expect((await status(base, t.liveKey, tx.trxid)).status).toBe('paid');
    }
  });

  it('reads a form-encoded body too (NotiForwarder-style nested fields)', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    const body = new URLSearchParams({
      'notification[title]': 'Nobu',
      'notification[text]': `Pembayaran QRIS diterima, Rp ${dotted(tx.total_amount)},00 akan dikreditkan ke Tabungan Reguler kamu 5859********8988`,
      'notification[timestamp]': String(t.clock.now()),
    }).toString();
    const res = await post(body, 'bearer', { contentType: 'application/x-www-form-urlencoded' });
    expect(res.body.data.results[0]).toMatchObject({ outcome: 'matched', trxid: tx.trxid });
    expect((await notificationRows())[0]).toMatchObject({ app: 'nobu', title: 'Nobu', outcome: 'matched' });
  });

  it('refuses every other post with 401 invalid_signature and stores nothing', async () => {
    const before = await footprint(t);
    const rows = (await notificationRows()).length;
    const body = notification(gopayLine(5000, 'REFUSED1'));
    const wrongSignature = createHmac('sha256', other.secret).update(body).digest('hex');
    const refusals: Auth[] = [
      'none',
      { header: { authorization: 'Bearer ptk_wrongwrongwrongwrongwrongwrongwr' } },
      { header: {}, query: 'ptk_wrongwrongwrongwrongwrongwrongwr' },
      { header: { 'x-signature': wrongSignature } },
      { header: { 'x-signature': signPayload(other.secret, body, Math.floor(t.clock.now() / 1000)) } },
      // Another source's token, and this source's secret sent as a token.
      { header: { authorization: `Bearer ${other.token}` } },
      { header: {}, query: other.token },
      { header: { authorization: `Bearer ${source.secret}` } },
    ];
    for (const auth of refusals) {
      const res = await post(body, auth);
      expect(res.status, JSON.stringify(auth)).toBe(401);
      expect(res.body.error.code).toBe('invalid_signature');
    }
    expect(await footprint(t)).toEqual(before);
    expect((await notificationRows()).length).toBe(rows);
    expect((await notificationRows(other.id)).length).toBe(0);
  });

  it('a retry of the same post and the customer app’s copy are one payment', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    const body = notification(gopayLine(tx.total_amount, 'RtY7Kq2P'), { package: 'com.gojek.gopaymerchant' });
    const first = await post(body);
    expect(first.body.data.results[0]).toMatchObject({ outcome: 'matched', trxid: tx.trxid });
    const paymentId = first.body.data.results[0].payment_id;
    const retry = await post(body);
    expect(retry.body.data.results).toEqual([
      { outcome: 'duplicate', reason: null, payment_id: paymentId, trxid: tx.trxid, amount: tx.total_amount },
    ]);
    // The GoPay customer app on the same phone shows the same text a moment later.
    t.clock.advance(3_000);
    const copy = await post(
      notification(gopayLine(tx.total_amount, 'RtY7Kq2P'), { package: 'com.gojek.gopay' }),
      'bearer',
    );
    expect(copy.body.data.results[0]).toMatchObject({ outcome: 'duplicate', payment_id: paymentId });

    // Without an id (DANA): the same text at the same time is the same payment; a later one is another.
    const dana = notification('Kamu berhasil menerima Rp77123 dari BUDI', { package: 'id.dana' });
    const a = await post(dana);
    const b = await post(dana);
    expect(a.body.data.results[0].outcome).toBe('unmatched');
    expect(b.body.data.results[0]).toMatchObject({
      outcome: 'duplicate',
      payment_id: a.body.data.results[0].payment_id,
    });
    t.clock.advance(60_000);
    const later = await post(notification('Kamu berhasil menerima Rp77123 dari BUDI', { package: 'id.dana' }));
    expect(later.body.data.results[0].payment_id).not.toBe(a.body.data.results[0].payment_id);
  });

  it('the same notification posted twice at once is one payment (a forwarder retrying in parallel)', async () => {
    const texts = [
      (n: number) => `Kamu berhasil menerima Rp${n} via Gopay ke akunmu. Cek yuk!`,
      (n: number) => gopayLine(n, `par${n}`),
    ];
    for (const text of texts) {
      const tx = await createLive(base, t.liveKey, ++amount);
      const body = notification(text(tx.total_amount));
      const answers = await Promise.all([post(body), post(body, 'bearer'), post(body, 'query')]);
      const results = answers.map((a) => a.body.data.results[0]);
      expect(results.map((r) => r.outcome).sort()).toEqual(['duplicate', 'duplicate', 'matched']);
      expect(new Set(results.map((r) => r.payment_id)).size).toBe(1);
      expect((await status(base, t.liveKey, tx.trxid)).status).toBe('paid');
      expect(
        (await t.deps.db.selectFrom('payments').select('id').where('transaction_id', '=', tx.trxid).execute()).length,
      ).toBe(1);
    }
  });

  it('a grouped notification pays each of its transactions, and the checkout pages turn paid', async () => {
    const one = await createLive(base, t.liveKey, ++amount);
    const two = await createLive(base, t.liveKey, ++amount);
    for (const tx of [one, two])
      expect(await (await fetch(`${base}/checkout/${tx.trxid}/status`)).json()).toMatchObject({
        data: { status: 'pending' },
      });
    const text = `${gopayLine(one.total_amount, 'Grp1aaaa')}\n${gopayLine(two.total_amount, 'Grp2bbbb')}`;
    const res = await post(
      JSON.stringify({
        title: 'Pembayaran QRIS diterima!',
        bigText: text,
        text: gopayLine(two.total_amount, 'Grp2bbbb'),
        package: 'com.gojek.resto',
      }),
    );
    expect(res.body.data.results.map((r: any) => [r.outcome, r.trxid])).toEqual([
      ['matched', one.trxid],
      ['matched', two.trxid],
    ]);
    for (const tx of [one, two])
      expect(await (await fetch(`${base}/checkout/${tx.trxid}/status`)).json()).toMatchObject({
        data: { status: 'paid' },
      });
    // The next grouped notification repeats a line already forwarded: that line is a duplicate.
    const again = await post(
      JSON.stringify({
        title: 'x',
        text: `${gopayLine(two.total_amount, 'Grp2bbbb')}\n${gopayLine(999, 'Grp3cccc')}`,
        package: 'com.gojek.resto',
      }),
    );
    expect(again.body.data.results.map((r: any) => r.outcome)).toEqual(['duplicate', 'unmatched']);
  });

  it('non-payments pay nothing, are answered ignored with a reason, and are kept', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    const before = await footprint(t);
    const cases = [
      [`Kamu berhasil menerima cashback Rp${tx.total_amount}! Cek yuk!`, 'id.dana', 'promotion'],
      [`Promo! Diskon Rp${dotted(tx.total_amount)} untuk QRIS`, 'com.gojek.gopaymerchant', 'promotion'],
      [`Pembayaran Rp${dotted(tx.total_amount)} ke Toko Sinar Jaya berhasil`, 'com.gojek.gopay', 'outgoing'],
      [
        `Penarikan Rp${dotted(tx.total_amount)} ke rekening BCA sedang diproses`,
        'com.gojek.gopaymerchant',
        'withdrawal',
      ],
      ['Ada pembayaran masuk, cek aplikasi', 'com.gojek.gopaymerchant', 'unreadable'],
      [`Rp${dotted(tx.total_amount)} sudah saya transfer ya`, 'com.whatsapp', 'unknown_app'],
    ] as const;
    for (const [text, app, reason] of cases) {
      const res = await post(notification(text, { package: app }), 'query');
      expect(res.status).toBe(200);
      expect(res.body.data.results, text).toEqual([
        { outcome: 'ignored', reason, payment_id: null, trxid: null, amount: null },
      ]);
    }
    const broken = await post('{"text": not json', 'bearer');
    expect(broken.body.data.results).toEqual([
      { outcome: 'ignored', reason: 'unreadable', payment_id: null, trxid: null, amount: null },
    ]);
    expect(await footprint(t)).toEqual(before);
    expect((await status(base, t.liveKey, tx.trxid)).status).toBe('pending');
    const kept = (await notificationRows()).slice(0, cases.length + 1);
    expect(kept.map((r) => r.reason).sort()).toEqual([...cases.map((c) => c[2]), 'unreadable'].sort());
  });

  it('never logs the token of ?token=', () => {
    const logs = t.logs.join('\n');
    expect(logs).toContain('/events?token=[REDACTED]');
    for (const secret of [source.token, other.token, source.secret]) expect(logs).not.toContain(secret);
  });

  it('source rotate issues a new token and secret; the old ones work for the grace period only', async () => {
    const before = Date.now();
    const rotated = await cli(t, ['source', 'rotate', other.id, '--json']);
    const after = Date.now();
    expect(rotated.code, rotated.stderr).toBe(0);
    const fresh = rotated.json as typeof other & { previous_valid_until: string };
    expect(fresh.token).not.toBe(other.token);
    expect(fresh.secret).not.toBe(other.secret);
    // The CLI runs on the real clock (its own process's), the app on the test's.
    const until = Date.parse(fresh.previous_valid_until);
    // A day after the CLI's own clock read, however long its process took to start.
    expect(until).toBeGreaterThanOrEqual(before + 86_400_000);
    expect(until).toBeLessThanOrEqual(after + 86_400_000);
    const body = notification('Ada pembayaran masuk');
    expect((await post(body, 'bearer', { to: fresh })).status).toBe(200);
    expect((await post(body, 'bearer', { to: other })).status).toBe(200);
    expect((await post(body, 'x-signature', { to: other })).status).toBe(200);
    t.clock.advance(until - 1000 - t.clock.now());
    expect((await post(body, 'bearer', { to: other })).status).toBe(200);
    t.clock.advance(2000);
    expect((await post(body, 'bearer', { to: other })).status).toBe(401);
    expect((await post(body, 'x-signature', { to: other })).status).toBe(401);
    expect((await post(body, 'query', { to: fresh })).status).toBe(200);
    const audit = await t.deps.db
      .selectFrom('audit_log')
      .select(['action', 'actor'])
      .where('subject_id', '=', other.id)
      .execute();
    expect(audit.map((a) => a.action)).toContain('source.rotate');
    // A kind without credentials to rotate says so.
    const webhook = (await cli(t, ['source', 'add', '--merchant', t.merchant.id, '--type', 'webhook', '--json'])).json!;
    expect((await cli(t, ['source', 'rotate', webhook.id, '--json'])).code).not.toBe(0);
    other = fresh;
  });

  it('dev notify posts what the forwarder would, signed, and pays the transaction', async () => {
    for (const app of ['gopay', 'dana', 'nobu']) {
      const tx = await createLive(base, t.liveKey, ++amount);
      const res = await cli(t, [
        'dev',
        'notify',
        '--gateway-url',
        base,
        '--source',
        source.id,
        '--app',
        app,
        '--amount',
        String(tx.total_amount),
        '--json',
      ]);
      expect(res.code, res.stdout + res.stderr).toBe(0);
      expect(res.json!.answer.data.results[0]).toMatchObject({ outcome: 'matched', trxid: tx.trxid });
      expect((await status(base, t.liveKey, tx.trxid)).status).toBe('paid');
    }
  });

  it(`keeps only the latest ${NOTIFICATIONS_KEPT} notifications of a source`, async () => {
    const input = {
      source: { id: other.id, merchantId: t.merchant.id, mode: 'live' as const },
      app: null,
      title: 't',
      raw: null,
    };
    await Promise.all(
      Array.from({ length: NOTIFICATIONS_KEPT + 5 }, (_, i) =>
        recordNotification(t.deps, { ...input, text: `n${i}`, reading: { ignored: 'unreadable' } }),
      ),
    );
    t.clock.advance(1000);
    await recordNotification(t.deps, { ...input, text: 'newest', reading: { ignored: 'unreadable' } });
    const rows = await notificationRows(other.id);
    expect(rows.length).toBe(NOTIFICATIONS_KEPT);
    expect(rows[0]!.text).toBe('newest');
    expect((await notificationRows()).length).toBeGreaterThan(0);
  });
});
