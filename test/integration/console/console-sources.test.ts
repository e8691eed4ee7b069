import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, seedMerchant, type TestApp } from '../../helpers/context.js';
import { addMerchantUser, addOperator, ConsoleClient, noticeOf } from '../../helpers/console.js';
import { addFeedSource } from '../../../src/payment-sources/feed/setup.js';
import { pollDueFeeds } from '../../../src/payment-sources/feed/poll.js';
import { addWebhookSource } from '../../../src/payment-sources/webhook/setup.js';
import { signPayload } from '../../../src/payment-sources/webhook/signature.js';

const mainOf = (body: string) => /<main id="content">([\s\S]*)<\/main>/.exec(body)?.[1] ?? '';
const sources = (t: TestApp) => t.deps.db.selectFrom('payment_sources').selectAll().orderBy('created_at').execute();
const audits = (t: TestApp, action: string) =>
  t.deps.db.selectFrom('audit_log').selectAll().where('action', '=', action).execute();
/** The text of one source's card. */
const cardOf = (body: string, id: string) =>
  new RegExp(`<section class="card source" aria-labelledby="source-${id}">([\\s\\S]*?)</section>`).exec(body)?.[1] ??
  '';

describe('console payment sources', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  async function operator(): Promise<ConsoleClient> {
    await addOperator(t.deps);
    const c = new ConsoleClient(t.app);
    expect((await c.logIn('ops@example.test')).statusCode).toBe(303);
    return c;
  }

  async function submit(c: ConsoleClient, url: string, fields: Record<string, string>) {
    const res = await c.post(url, fields, '/dashboard/sources');
    return { res, page: res.statusCode === 303 ? await c.get(res.headers.location as string) : null };
  }

  /** Posts a payment to a webhook source's URL, signed with `secret`. */
  async function report(url: string, secret: string, amount: number) {
    const body = JSON.stringify({ id: `wallet-${amount}`, amount, paid_at: new Date(t.clock.now()).toISOString() });
    return t.app.inject({
      method: 'POST',
      url,
      headers: {
        'content-type': 'application/json',
        'x-signature': signPayload(secret, body, Math.floor(t.clock.now() / 1000)),
      },
      payload: body,
    });
  }

  it('logged out, the page and the forms send to the login', async () => {
    t = await createTestApp();
    const c = new ConsoleClient(t.app);
    expect((await c.get('/dashboard/sources')).statusCode).toBe(303);
    expect((await c.post('/dashboard/sources', { type: 'webhook', merchant: t.merchant.id })).statusCode).toBe(303);
    expect(await sources(t)).toEqual([]);
  });

  it('adds a signed-webhook source: its secret and URL shown once, and the secret signs reports', async () => {
    t = await createTestApp();
    const c = await operator();
    const empty = await c.get('/dashboard/sources');
    expect(empty.body).toContain('<label for="source-type">Type</label>');
    // Each kind's own fields are marked with the kinds that read them (the registry's console.fields),
    // and labelled with them for a browser without script: a signed webhook has none.
    expect(empty.body).toContain('<select id="source-type" name="type" required data-shows-fields>');
    for (const [id, label] of [
      ['source-url', 'Feed URL'],
      ['source-method', 'Method'],
      ['source-headers', 'Headers'],
      ['source-body', 'Body'],
      ['source-interval', 'Poll interval (seconds)'],
      ['source-mapping', 'Field mapping (JSON or a preset)'],
    ]) {
      expect(empty.body).toContain(
        `<div class="kind-field" data-for-kinds="feed">\n<label for="${id}">${label} <span class="for-kinds">(Mutation feed only)</span></label>`,
      );
    }
    expect(empty.body).not.toMatch(/data-for-kinds="[^"]*webhook/);
    expect(empty.body).toMatch(/<button type="submit">Add source<\/button>/);

    const res = await c.post(
      '/dashboard/sources',
      { type: 'webhook', merchant: t.merchant.id, mode: 'test' },
      '/dashboard/sources',
    );
    expect(res.statusCode).toBe(201);
    const [row] = await sources(t);
    const secret = JSON.parse(row!.config).secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(res.body.split(secret)).toHaveLength(2);
    const url = `http://gateway.test/api/payment-sources/${row!.id}/events`;
    expect(res.body).toContain(`<p class="secret" id="source-url">${url}</p>`);
    expect(noticeOf(res.body)).toBe(`Webhook source ${row!.id} added.`);
    expect(await audits(t, 'source.add')).toMatchObject([
      {
        actor: 'user:ops@example.test',
        subject_id: row!.id,
        details: JSON.stringify({ type: 'webhook', merchant_id: t.merchant.id }),
      },
    ]);

    const list = await c.get('/dashboard/sources');
    expect(list.body).not.toContain(secret);
    const card = cardOf(list.body, row!.id);
    expect(card).toContain(url);
    expect(card).toMatch(/<dt>Last payment reported<\/dt><dd>never<\/dd>/);

    // The secret shown is the one that verifies reports; the source's health then shows the report.
    expect((await report(`/api/payment-sources/${row!.id}/events`, secret, 12_345)).statusCode).toBe(200);
    expect(cardOf((await c.get('/dashboard/sources')).body, row!.id)).toMatch(
      /<dt>Last payment reported<\/dt><dd>[^<]*WIB<\/dd>/,
    );
  });

  it('adds a feed, shows it with its token masked and its poll health', async () => {
    t = await createTestApp();
    const c = await operator();
    const { res, page } = await submit(c, '/dashboard/sources', {
      type: 'feed',
      merchant: t.merchant.id,
      mode: 'live',
      url: 'https://feed.example.test/mutasi?token=secret-token',
      interval: '30',
      mapping: '{"type": null}',
    });
    expect(res.statusCode).toBe(303);
    const [row] = await sources(t);
    expect(row).toMatchObject({ type: 'feed', merchant_id: t.merchant.id, enabled: 1 });
    expect(JSON.parse(row!.config)).toMatchObject({
      mode: 'live',
      url: 'https://feed.example.test/mutasi?token=secret-token',
      intervalSeconds: 30,
      mapping: { type: null },
    });
    expect(noticeOf(page!.body)).toBe(
      `Feed source ${row!.id} added: polls https://feed.example.test/mutasi?token=*** every 30 s.`,
    );
    expect(page!.body).not.toContain('secret-token');
    expect(await audits(t, 'source.add')).toMatchObject([{ actor: 'user:ops@example.test', subject_id: row!.id }]);

    await pollDueFeeds(t.deps, { fetch: async () => new Response('down', { status: 503 }) });
    const card = cardOf((await c.get('/dashboard/sources')).body, row!.id);
    expect(card).toMatch(/<dt>Last successful poll<\/dt><dd>never<\/dd>/);
    expect(card).toMatch(/<dt>Failures in a row<\/dt><dd>1<\/dd>/);
    expect(card).toContain('the feed answered HTTP 503');
    expect(card).toContain('every 30 s');
  });

  it("validates every field with the setup functions' own messages, and stores nothing", async () => {
    t = await createTestApp();
    const c = await operator();
    const feed = {
      type: 'feed',
      merchant: t.merchant.id,
      mode: 'live',
      url: 'https://feed.example.test/',
      interval: '30',
      mapping: '',
    };
    const cases: Array<[Record<string, string>, string]> = [
      [{ ...feed, type: '' }, 'Choose the type of source.'],
      [{ ...feed, merchant: '' }, 'Choose the merchant whose payments this source reports.'],
      [{ ...feed, url: '' }, 'Enter the URL of the feed.'],
      [{ ...feed, interval: '' }, 'Enter how many seconds to wait between polls.'],
      [{ ...feed, interval: '3' }, 'This cannot be saved: interval must be whole seconds from 5 to 86400'],
      [{ ...feed, url: 'ftp://feed.example.test/' }, 'This cannot be saved: url must start with http:// or https://'],
      [{ ...feed, mapping: '{nope' }, 'The field mapping is not valid JSON.'],
      [{ ...feed, mapping: '{"colour": "x"}' }, 'This cannot be saved: mapping: unknown key "colour"'],
      [{ ...feed, mode: 'sandbox' }, 'This cannot be saved: mode must be test or live'],
      [
        { type: 'webhook', merchant: t.merchant.id, mode: 'sandbox' },
        'This cannot be saved: mode must be test or live',
      ],
    ];
    for (const [fields, message] of cases) {
      const { res, page } = await submit(c, '/dashboard/sources', fields);
      expect(res.statusCode).toBe(303);
      expect(noticeOf(page!.body)).toBe(message);
      expect(page!.body).toContain('class="notice error" role="alert"');
    }
    expect(
      (await c.post('/dashboard/sources', { type: 'webhook', merchant: 'mch_unknown' }, '/dashboard/sources'))
        .statusCode,
    ).toBe(404);
    expect(await sources(t)).toEqual([]);
    expect(await audits(t, 'source.add')).toEqual([]);
  });

  it('Disable and Enable switch the source, audited; a disabled webhook source takes no reports', async () => {
    t = await createTestApp();
    const created = await addWebhookSource(t.deps, { merchantId: t.merchant.id, mode: 'test' });
    const c = await operator();
    const list = await c.get('/dashboard/sources');
    expect(cardOf(list.body, created.id)).toMatch(
      /<form method="post" action="\/dashboard\/sources\/src_[0-9A-Za-z]+\/disable" class="switch" data-confirm="[^"]+">/,
    );

    const { res, page } = await submit(c, `/dashboard/sources/${created.id}/disable`, {});
    expect(res.headers.location).toBe('/dashboard/sources');
    expect(noticeOf(page!.body)).toBe(`Source ${created.id} is disabled.`);
    expect((await sources(t))[0]!.enabled).toBe(0);
    expect(cardOf(page!.body, created.id)).toContain('<span class="badge disabled">disabled</span>');
    expect((await report(created.url, created.secret, 5_000)).statusCode).toBe(404);

    t.clock.advance(1000);
    const { page: again } = await submit(c, `/dashboard/sources/${created.id}/enable`, {});
    expect(noticeOf(again!.body)).toBe(`Source ${created.id} is enabled.`);
    expect((await sources(t))[0]!.enabled).toBe(1);
    expect(cardOf(again!.body, created.id)).toContain('<span class="badge ok">enabled</span>');
    expect((await report(created.url, created.secret, 5_001)).statusCode).toBe(200);
    expect(
      await t.deps.db
        .selectFrom('audit_log')
        .select(['action', 'actor'])
        .where('subject_id', '=', created.id)
        .orderBy('created_at')
        .execute(),
    ).toEqual([
      { action: 'source.disable', actor: 'user:ops@example.test' },
      { action: 'source.enable', actor: 'user:ops@example.test' },
    ]);
    expect((await c.post('/dashboard/sources/src_unknown/disable', {}, '/dashboard/sources')).statusCode).toBe(404);
  });

  it('refuses a form without its CSRF token', async () => {
    t = await createTestApp();
    const created = await addWebhookSource(t.deps, { merchantId: t.merchant.id });
    const c = await operator();
    const res = await t.app.inject({
      method: 'POST',
      url: `/dashboard/sources/${created.id}/disable`,
      headers: { cookie: c.jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(res.statusCode).toBe(403);
    expect((await sources(t))[0]!.enabled).toBe(1);
  });

  it("a merchant user sees and switches only its merchants' sources, and may not add a feed", async () => {
    t = await createTestApp();
    const other = await seedMerchant(t.deps, 1, 'Other Shop');
    const mine = await addWebhookSource(t.deps, { merchantId: t.merchant.id });
    const theirs = await addFeedSource(t.deps, {
      merchantId: other.merchant.id,
      url: 'https://feed.example.test/theirs',
      intervalSeconds: 60,
    });
    await addMerchantUser(t.deps, [t.merchant.id]);
    const c = new ConsoleClient(t.app);
    await c.logIn('shop@example.test');

    const list = await c.get('/dashboard/sources');
    expect(list.body).toContain(mine.id);
    expect(list.body).not.toContain(theirs.id);
    expect(list.body).not.toContain('feed.example.test');
    expect(list.body).not.toContain('<option value="feed">');
    // Nothing it may add reads a field of its own: the form has only the common ones.
    expect(list.body).not.toContain('data-for-kinds');
    expect(list.body).not.toContain('id="source-url"');

    const unknown = await c.post('/dashboard/sources/src_unknown000/disable', {}, '/dashboard/sources');
    expect(unknown.statusCode).toBe(404);
    for (const action of ['disable', 'enable']) {
      const res = await c.post(`/dashboard/sources/${theirs.id}/${action}`, {}, '/dashboard/sources');
      expect(res.statusCode).toBe(404);
      expect(mainOf(res.body)).toBe(mainOf(unknown.body));
    }
    expect(
      (
        await c.post(
          '/dashboard/sources',
          { type: 'webhook', merchant: other.merchant.id, mode: 'live' },
          '/dashboard/sources',
        )
      ).statusCode,
    ).toBe(404);
    const { page } = await submit(c, '/dashboard/sources', {
      type: 'feed',
      merchant: t.merchant.id,
      mode: 'live',
      url: 'http://127.0.0.1:6379/',
      interval: '5',
    });
    expect(noticeOf(page!.body)).toBe(
      'Only an operator can add a feed: the gateway fetches its URL from inside its own network.',
    );
    expect((await sources(t)).map((s) => [s.id, s.enabled])).toEqual([
      [mine.id, 1],
      [theirs.id, 1],
    ]);

    expect((await submit(c, `/dashboard/sources/${mine.id}/disable`, {})).res.statusCode).toBe(303);
    expect(
      (
        await c.post(
          '/dashboard/sources',
          { type: 'webhook', merchant: t.merchant.id, mode: 'live' },
          '/dashboard/sources',
        )
      ).statusCode,
    ).toBe(201);
  });
});
