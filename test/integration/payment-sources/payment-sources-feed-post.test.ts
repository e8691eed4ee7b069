// issue 36, section 3: a polled history asked with a POST (a form body and a header carrying the
// account's login), read with the qris-history preset; its header values and body are secrets.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIB_OFFSET_MS } from '../../../src/domain/wib.js';
import { pollDueFeeds } from '../../../src/payment-sources/feed/poll.js';
import { setSourceEnabled } from '../../../src/services/sources/set-source-enabled.js';
import { addOperator, ConsoleClient, TEST_ACTOR } from '../../helpers/console.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { cli, createLive, listen, status } from '../../helpers/payment-sources.js';
import { dotted } from '../../helpers/rupiah.js';

const ALLOW = { WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8' };
const BODY = 'username=merchant-login&token=body-secret-123';
const HEADER = 'X-Auth-Token: header-secret-456';

/** "dd/mm/yyyy HH:MM" in WIB, as the merchant-app histories write it. */
function tanggal(ms: number): string {
  const d = new Date(ms + WIB_OFFSET_MS).toISOString();
  return `${d.slice(8, 10)}/${d.slice(5, 7)}/${d.slice(0, 4)} ${d.slice(11, 16)}`;
}

let t: TestApp;
let base: string;
let server: Server;
let url: string;
let results: unknown[] = [];
const seen: Array<{ method: string; status: number }> = [];

beforeAll(async () => {
  t = await createTestApp({ FEED_TIMEOUT_MS: '2000', ...ALLOW });
  base = await listen(t);
  // Answers only a POST with the agreed form body and header; 405 to another method, 401 otherwise.
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const answer = (code: number, value: unknown) => {
        seen.push({ method: req.method ?? '', status: code });
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (req.method !== 'POST') return answer(405, { error: 'POST only' });
      if (
        req.headers['x-auth-token'] !== 'header-secret-456' ||
        body !== BODY ||
        req.headers['content-type'] !== 'application/x-www-form-urlencoded'
      ) {
        return answer(401, { error: 'bad login' });
      }
      answer(200, { qris_history: { success: true, results } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2/qris/mutasi?account=acct-secret-789`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

const payments = (source: string) =>
  t.deps.db.selectFrom('payments').selectAll().where('source', '=', source).execute();

/** `source add --type feed` polling the test server every 10 s, with these options. */
const addFeed = (options: string[]) =>
  cli(
    t,
    [
      'source',
      'add',
      '--merchant',
      t.merchant.id,
      '--type',
      'feed',
      '--url',
      url,
      '--interval',
      '10',
      ...options,
      '--json',
    ],
    ALLOW,
  );
/** A POST feed with the login the test server agrees to, read with the qris-history preset. */
const addPostFeed = (extra: string[] = []) =>
  addFeed(['--method', 'POST', '--header', HEADER, '--body', BODY, '--mapping', 'qris-history', ...extra]);

describe('a polled history asked with a POST (qris-history)', () => {
  it('an IN entry pays a pending transaction end to end, OUT pays nothing, a second poll adds nothing', async () => {
    const added = await addPostFeed();
    expect(added.code, added.stdout + added.stderr).toBe(0);
    const id = added.json!.id as string;
    expect(added.json).toMatchObject({
      method: 'POST',
      headers: { 'X-Auth-Token': '***' },
      body: '***',
      mapping: { items: 'qris_history.results', credit: 'IN' },
    });
    expect(added.stdout).not.toContain('header-secret-456');
    expect(added.stdout).not.toContain('body-secret-123');

    const tx = await createLive(base, t.liveKey, 61_000);
    t.clock.advance(60_000);
    const when = tanggal(t.clock.now());
    results = [
      {
        id: 9101,
        debet: '0',
        kredit: dotted(tx.total_amount),
        saldo_akhir: '1.250.000',
        keterangan: 'NOBU / EK***',
        tanggal: when,
        status: 'IN',
        fee: '',
        brand: { name: 'DANA', logo: 'x' },
      },
      // The same amount going out: a debit, never a payment.
      {
        id: 9102,
        debet: dotted(tx.total_amount),
        kredit: '0',
        saldo_akhir: '1.189.000',
        keterangan: 'TARIK',
        tanggal: when,
        status: 'OUT',
        fee: '',
        brand: { name: 'BANK', logo: 'x' },
      },
    ];
    const summary = (await pollDueFeeds(t.deps)).find((s) => s.sourceId === id);
    expect(summary).toMatchObject({ ok: true, recorded: 1, matched: 1, unmatched: 0, skipped: 0 });
    expect(seen.at(-1)).toEqual({ method: 'POST', status: 200 });
    expect(await status(base, t.liveKey, tx.trxid)).toMatchObject({
      status: 'paid',
      payment: { source: id, amount: tx.total_amount, reference: 'NOBU / EK***', issuer: 'DANA' },
    });
    const stored = await payments(id);
    expect(stored.map((p) => [p.source_payment_id, p.amount, p.paid_at])).toEqual([
      ['9101', tx.total_amount, Math.floor(t.clock.now() / 60_000) * 60_000],
    ]);

    t.clock.advance(10_000);
    expect((await pollDueFeeds(t.deps)).find((s) => s.sourceId === id)).toMatchObject({ ok: true, recorded: 0 });
    expect(await payments(id)).toHaveLength(1);
    await setSourceEnabled(t.deps, { id, enabled: false, actor: TEST_ACTOR });
  });

  it('the server refuses a GET (405) and a wrong login (401): failed polls, nothing recorded', async () => {
    const get = await addFeed(['--mapping', 'qris-history']);
    const id = get.json!.id as string;
    expect((await pollDueFeeds(t.deps)).find((s) => s.sourceId === id)).toMatchObject({
      ok: false,
      error: 'the feed answered HTTP 405',
    });
    await setSourceEnabled(t.deps, { id, enabled: false, actor: TEST_ACTOR });
    const wrong = await addFeed([
      '--method',
      'post',
      '--body',
      'username=x&token=y',
      '--header',
      HEADER,
      '--mapping',
      'qris-history',
    ]);
    const wrongId = wrong.json!.id as string;
    expect((await pollDueFeeds(t.deps)).find((s) => s.sourceId === wrongId)).toMatchObject({
      ok: false,
      error: 'the feed answered HTTP 401',
    });
    await setSourceEnabled(t.deps, { id: wrongId, enabled: false, actor: TEST_ACTOR });
    expect(await payments(id)).toEqual([]);
    expect(await payments(wrongId)).toEqual([]);
  });

  it('a POST answered with a 307 is a failed poll: the login is not sent on to where it points', async () => {
    // A 307 asks for the same POST, body and headers included, at another address: here the real history.
    const redirector = createServer((_req, res) => {
      res.writeHead(307, { location: url });
      res.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const from = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/moved`;
      const added = await cli(
        t,
        [
          'source',
          'add',
          '--merchant',
          t.merchant.id,
          '--type',
          'feed',
          '--url',
          from,
          '--interval',
          '10',
          '--method',
          'POST',
          '--header',
          HEADER,
          '--body',
          BODY,
          '--mapping',
          'qris-history',
          '--json',
        ],
        ALLOW,
      );
      const id = added.json!.id as string;
      const before = seen.length;
      expect((await pollDueFeeds(t.deps)).find((s) => s.sourceId === id)).toMatchObject({
        ok: false,
        error: 'the feed answered HTTP 307 (a redirect, not followed)',
      });
      expect(seen.length).toBe(before);
      await setSourceEnabled(t.deps, { id, enabled: false, actor: TEST_ACTOR });
    } finally {
      redirector.closeAllConnections();
      await new Promise((resolve) => redirector.close(resolve));
    }
  });

  it('header values and the body are masked in source list --json, the console sources page and the audit log', async () => {
    const added = await addPostFeed();
    const id = added.json!.id as string;
    const secrets = ['header-secret-456', 'body-secret-123', 'merchant-login', 'acct-secret-789'];

    const listed = await cli(t, ['source', 'list', '--merchant', t.merchant.id, '--json']);
    for (const s of secrets) expect(listed.stdout).not.toContain(s);
    expect(listed.json!.items.find((s: any) => s.id === id)).toMatchObject({
      method: 'POST',
      headers: { 'X-Auth-Token': '***' },
      body: '***',
      url: expect.stringContaining('account=***'),
    });
    const text = await cli(t, ['source', 'list', '--merchant', t.merchant.id]);
    expect(text.stdout).toContain('X-Auth-Token: ***');
    for (const s of secrets) expect(text.stdout).not.toContain(s);

    await addOperator(t.deps);
    const c = new ConsoleClient(t.app);
    expect((await c.logIn('ops@example.test')).statusCode).toBe(303);
    const page = (await c.get('/dashboard/sources')).body;
    const card =
      new RegExp(`<section class="card source" aria-labelledby="source-${id}">([\\s\\S]*?)</section>`).exec(
        page,
      )?.[1] ?? '';
    expect(card).toContain('X-Auth-Token: ***');
    expect(card).toMatch(/<dt>Body<\/dt><dd class="mono">\*\*\*<\/dd>/);
    for (const s of secrets) expect(page).not.toContain(s);

    const audit = await t.deps.db.selectFrom('audit_log').selectAll().where('subject_id', '=', id).execute();
    expect(audit.map((a) => a.action)).toEqual(['source.add']);
    for (const s of secrets) expect(JSON.stringify(audit)).not.toContain(s);
    const auditPage = (await c.get('/dashboard/audit')).body;
    expect(auditPage).toContain(id);
    for (const s of secrets) expect(auditPage).not.toContain(s);
    await setSourceEnabled(t.deps, { id, enabled: false, actor: TEST_ACTOR });
  });

  it('the console adds a POST feed with the qris-history preset named in its mapping field', async () => {
    const c = new ConsoleClient(t.app);
    expect((await c.logIn('ops@example.test')).statusCode).toBe(303);
    const res = await c.post(
      '/dashboard/sources',
      {
        type: 'feed',
        merchant: t.merchant.id,
        mode: 'live',
        url,
        method: 'POST',
        headers: `${HEADER}\r\nAccept-Language: id`,
        body: BODY,
        interval: '30',
        mapping: 'qris-history',
      },
      '/dashboard/sources',
    );
    expect(res.statusCode).toBe(303);
    const page = (await c.get(res.headers.location as string)).body;
    for (const s of ['header-secret-456', 'body-secret-123', 'acct-secret-789']) expect(page).not.toContain(s);
    const row = await t.deps.db
      .selectFrom('payment_sources')
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.config)).toMatchObject({
      method: 'POST',
      headers: { 'X-Auth-Token': 'header-secret-456', 'Accept-Language': 'id' },
      body: BODY,
      mapping: {
        items: 'qris_history.results',
        date: 'tanggal',
        amount: 'kredit',
        type: 'status',
        credit: 'IN',
        id: 'id',
        reference: 'keterangan',
        issuer: 'brand.name',
      },
    });
    await setSourceEnabled(t.deps, { id: row.id, enabled: false, actor: TEST_ACTOR });
  });

  it('refuses a bad --method, a bad --header and a body on a GET (invalid_parameter), storing nothing', async () => {
    const before = (await t.deps.db.selectFrom('payment_sources').select('id').execute()).length;
    const add = (...extra: string[]) => addFeed(extra);
    const cases: Array<[string[], string]> = [
      [['--method', 'PUT'], 'method'],
      [['--method', 'DELETE'], 'method'],
      [['--method', 'POST', '--header', 'Host: evil.example'], 'header'],
      [['--method', 'POST', '--header', 'content-length: 5'], 'header'],
      [['--method', 'POST', '--header', 'Transfer-Encoding: chunked'], 'header'],
      [['--method', 'POST', '--header', 'Connection: close'], 'header'],
      [['--method', 'POST', '--header', 'X-Token: a\r\nX-Smuggled: b'], 'header'],
      [['--method', 'POST', '--header', 'X-Token: a\nb'], 'header'],
      [['--method', 'POST', '--header', 'no colon here'], 'header'],
      [['--method', 'POST', '--header', 'Bad Name: x'], 'header'],
      [['--method', 'POST', '--header', 'X-A: 1', '--header', 'x-a: 2'], 'header'],
      [['--body', 'token=x'], 'body'],
      [['--mapping', 'no-such-preset-file.json'], 'mapping'],
    ];
    for (const [extra, param] of cases) {
      const res = await add(...extra);
      expect(res.code, extra.join(' ')).not.toBe(0);
      expect(res.json!.error, extra.join(' ')).toMatchObject({ code: 'invalid_parameter', param });
    }
    expect((await t.deps.db.selectFrom('payment_sources').select('id').execute()).length).toBe(before);
  });
});
