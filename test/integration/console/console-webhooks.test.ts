import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, seedMerchant, type TestApp } from '../../helpers/context.js';
import { addMerchantUser, addOperator, ConsoleClient, noticeOf } from '../../helpers/console.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { addWebhookEndpoint } from '../../../src/services/webhooks/add-webhook-endpoint.js';
import { MAX_ATTEMPTS, MAX_RETRY_DELAY_MS } from '../../../src/domain/webhook-retry.js';
import { dispatchDueDeliveries } from '../../../src/workers/webhook-dispatcher.js';

const ALL_EVENTS = ['transaction.paid', 'transaction.expired', 'transaction.cancelled', 'payment.unmatched'];
const mainOf = (body: string) => /<main id="content">([\s\S]*)<\/main>/.exec(body)?.[1] ?? '';
const endpoints = (t: TestApp) => t.deps.db.selectFrom('webhook_endpoints').selectAll().orderBy('created_at').execute();
const audits = (t: TestApp, action: string) =>
  t.deps.db.selectFrom('audit_log').selectAll().where('action', '=', action).execute();

describe('console webhooks', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  async function operator(): Promise<ConsoleClient> {
    await addOperator(t.deps);
    const c = new ConsoleClient(t.app);
    expect((await c.logIn('ops@example.test')).statusCode).toBe(303);
    return c;
  }

  /** Posts a form from the list page and follows a redirect. */
  async function submit(
    c: ConsoleClient,
    url: string,
    fields: Record<string, string | string[]>,
    from = '/dashboard/webhooks',
  ) {
    const res = await c.post(url, fields, from);
    return { res, page: res.statusCode === 303 ? await c.get(res.headers.location as string) : null };
  }

  // The logged-out pages: route-common.test.ts.
  it('logged out, the forms send to the login', async () => {
    t = await createTestApp();
    const c = new ConsoleClient(t.app);
    expect(
      (
        await c.post('/dashboard/webhooks', {
          merchant: t.merchant.id,
          url: 'https://hooks.example.test/',
          events: ALL_EVENTS,
        })
      ).statusCode,
    ).toBe(303);
    expect(await endpoints(t)).toEqual([]);
  });

  it('adds an endpoint and shows its signing secret exactly once', async () => {
    t = await createTestApp();
    const c = await operator();
    const empty = await c.get('/dashboard/webhooks');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('<label for="endpoint-url">URL</label>');
    expect(empty.body).toContain('<label for="endpoint-merchant">Merchant</label>');
    expect(empty.body).toMatch(/<button type="submit">Add endpoint<\/button>/);

    const res = await c.post(
      '/dashboard/webhooks',
      {
        merchant: t.merchant.id,
        url: 'https://hooks.example.test/qris',
        events: ['transaction.paid', 'payment.unmatched'],
      },
      '/dashboard/webhooks',
    );
    expect(res.statusCode).toBe(201);
    const [row] = await endpoints(t);
    expect(row).toMatchObject({
      merchant_id: t.merchant.id,
      url: 'https://hooks.example.test/qris',
      status: 'active',
      events: '["transaction.paid","payment.unmatched"]',
    });
    expect(row!.secret).toMatch(/^whsec_/);
    expect(res.body.split(row!.secret)).toHaveLength(2);
    expect(noticeOf(res.body)).toBe(`Endpoint ${row!.id} added.`);
    expect(await audits(t, 'webhook_endpoint.add')).toMatchObject([
      { actor: 'user:ops@example.test', subject_id: row!.id },
    ]);

    const list = await c.get('/dashboard/webhooks');
    expect(list.body).not.toContain(row!.secret);
    expect(list.body).toContain(`<a href="/dashboard/webhooks/${row!.id}">https://hooks.example.test/qris</a>`);
    expect(list.body).toContain('transaction.paid, payment.unmatched');
    expect(list.body).toContain('<span class="badge active">active</span>');
    expect((await c.get(`/dashboard/webhooks/${row!.id}`)).body).not.toContain(row!.secret);
  });

  it('validates every field, refuses private addresses (SSRF), and stores nothing', async () => {
    t = await createTestApp();
    const c = await operator();
    const base = { merchant: t.merchant.id, url: 'https://hooks.example.test/', events: ALL_EVENTS };
    const cases: Array<[Record<string, string | string[]>, string | RegExp]> = [
      [{ ...base, merchant: '' }, 'Choose the merchant whose events this endpoint receives.'],
      [{ ...base, url: '' }, 'Enter the URL the gateway posts events to.'],
      [{ ...base, events: [] }, 'Choose at least one event.'],
      [{ ...base, events: ['transaction.paid', 'nope'] }, /^This cannot be saved: unknown event type "nope"/],
      [{ ...base, url: 'ftp://hooks.example.test/' }, 'This cannot be saved: url must use http or https'],
      [
        { ...base, url: 'http://10.1.2.3/hook' },
        /^This cannot be saved: url points at 10\.1\.2\.3, which is .*private.*; set WEBHOOK_ALLOW_NETWORKS to allow it$/,
      ],
      [
        { ...base, url: 'http://localhost:8080/' },
        /^This cannot be saved: url points at 127\.0\.0\.1, which is loopback/,
      ],
      [{ ...base, url: 'http://169.254.169.254/latest/meta-data/' }, /which is link-local/],
    ];
    for (const [fields, message] of cases) {
      const { res, page } = await submit(c, '/dashboard/webhooks', fields);
      expect(res.statusCode).toBe(303);
      expect(page!.body).toContain('class="notice error" role="alert"');
      if (typeof message === 'string') expect(noticeOf(page!.body)).toBe(message);
      else expect(noticeOf(page!.body)).toMatch(message);
    }
    // An unknown merchant is the 404 page.
    expect(
      (await c.post('/dashboard/webhooks', { ...base, merchant: 'mch_unknown' }, '/dashboard/webhooks')).statusCode,
    ).toBe(404);
    expect(await endpoints(t)).toEqual([]);
  });

  it('the operator may allow a private network', async () => {
    t = await createTestApp({ WEBHOOK_ALLOW_NETWORKS: '10.0.0.0/8' });
    const c = await operator();
    expect(
      (
        await c.post(
          '/dashboard/webhooks',
          { merchant: t.merchant.id, url: 'http://10.1.2.3/hook', events: ALL_EVENTS },
          '/dashboard/webhooks',
        )
      ).statusCode,
    ).toBe(201);
  });

  it('refuses a form without its CSRF token', async () => {
    t = await createTestApp();
    const c = await operator();
    const res = await t.app.inject({
      method: 'POST',
      url: '/dashboard/webhooks',
      headers: { cookie: c.jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `merchant=${t.merchant.id}&url=https%3A%2F%2Fhooks.example.test%2F&events=transaction.paid`,
    });
    expect(res.statusCode).toBe(403);
    expect(await endpoints(t)).toEqual([]);
  });

  it('shows deliveries newest first with every attempt escaped, and resends the failed ones', async () => {
    t = await createTestApp();
    const endpoint = await addWebhookEndpoint(t.deps, {
      merchantId: t.merchant.id,
      url: 'https://hooks.example.test/qris',
    });
    await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 'console-test',
      sourcePaymentId: 'first',
      amount: 777,
      paidAt: t.clock.now(),
    });
    // Every attempt of the first event's delivery fails, until it runs out of retries.
    const post = async () => ({
      statusCode: 500,
      responseBody: '<script>alert("x")</script>',
      retryAfter: null,
      error: null,
      durationMs: 42,
    });
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      expect((await dispatchDueDeliveries(t.deps, { post, random: () => 0.5 })).claimed).toBe(1);
      t.clock.advance(MAX_RETRY_DELAY_MS * 2);
    }
    t.clock.advance(1000);
    await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 'console-test',
      sourcePaymentId: 'second',
      amount: 778,
      paidAt: t.clock.now(),
    });
    await dispatchDueDeliveries(t.deps, {
      post: async () => ({
        statusCode: null,
        responseBody: null,
        retryAfter: null,
        error: 'connect ECONNREFUSED',
        durationMs: 3,
      }),
      random: () => 0.5,
    });
    const deliveries = await t.deps.db.selectFrom('deliveries').selectAll().orderBy('created_at').execute();
    expect(deliveries.map((d) => d.status)).toEqual(['failed', 'pending']);

    const c = await operator();
    const page = await c.get(`/dashboard/webhooks/${endpoint.id}`);
    expect(page.statusCode).toBe(200);
    const body = mainOf(page.body);
    expect(body.indexOf(`id="delivery-${deliveries[1]!.id}"`)).toBeLessThan(
      body.indexOf(`id="delivery-${deliveries[0]!.id}"`),
    );
    expect(body.split('<li>')).toHaveLength(MAX_ATTEMPTS + 1 + 1);
    expect(body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(body).not.toContain('<script>alert');
    expect(body).toContain('HTTP 500');
    expect(body).toContain('42 ms');
    expect(body).toContain('connect ECONNREFUSED');
    expect(body).toContain('no response');
    expect(body).toContain('<span class="badge failed">failed</span>');
    expect(body).toMatch(/<button type="submit" class="secondary"[^>]*>Resend failed<\/button>/);

    const { res, page: after } = await submit(
      c,
      `/dashboard/webhooks/${endpoint.id}/resend-failed`,
      {},
      `/dashboard/webhooks/${endpoint.id}`,
    );
    expect(res.headers.location).toBe(`/dashboard/webhooks/${endpoint.id}`);
    expect(noticeOf(after!.body)).toBe('1 failed deliveries queued to be sent now.');
    const requeued = await t.deps.db
      .selectFrom('deliveries')
      .select(['id', 'status', 'attempts'])
      .where('id', '=', deliveries[0]!.id)
      .executeTakeFirstOrThrow();
    expect(requeued).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await audits(t, 'webhook.resend_failed')).toMatchObject([
      { actor: 'user:ops@example.test', subject_id: endpoint.id },
    ]);
    const { page: nothing } = await submit(
      c,
      `/dashboard/webhooks/${endpoint.id}/resend-failed`,
      {},
      `/dashboard/webhooks/${endpoint.id}`,
    );
    expect(noticeOf(nothing!.body)).toBe('There are no failed deliveries to resend.');
  });

  it('removes an endpoint (confirmed in the browser), keeps its history, and resends nothing to it', async () => {
    t = await createTestApp();
    const endpoint = await addWebhookEndpoint(t.deps, {
      merchantId: t.merchant.id,
      url: 'https://hooks.example.test/qris',
    });
    const c = await operator();
    const list = await c.get('/dashboard/webhooks');
    expect(list.body).toMatch(
      new RegExp(
        `<form method="post" action="/dashboard/webhooks/${endpoint.id}/remove" class="inline" data-confirm="[^"]+">`,
      ),
    );
    const { res, page } = await submit(c, `/dashboard/webhooks/${endpoint.id}/remove`, {});
    expect(res.headers.location).toBe('/dashboard/webhooks');
    expect(noticeOf(page!.body)).toBe(
      'Endpoint https://hooks.example.test/qris removed; 0 waiting deliveries cancelled. Its history is kept.',
    );
    expect((await endpoints(t))[0]!.status).toBe('disabled');
    expect(page!.body).toContain('<span class="badge disabled">removed</span>');
    expect(await audits(t, 'webhook_endpoint.remove')).toMatchObject([{ actor: 'user:ops@example.test' }]);
    const detail = await c.get(`/dashboard/webhooks/${endpoint.id}`);
    expect(detail.body).not.toContain('Resend failed');
    const { page: refused } = await submit(
      c,
      `/dashboard/webhooks/${endpoint.id}/resend-failed`,
      {},
      `/dashboard/webhooks/${endpoint.id}`,
    );
    expect(noticeOf(refused!.body)).toMatch(/^Nothing was resent: webhook endpoint .* is disabled$/);
  });

  it("a merchant user sees only its merchants' endpoints; another merchant's is a 404 everywhere", async () => {
    t = await createTestApp();
    const other = await seedMerchant(t.deps, 1, 'Other Shop');
    const mine = await addWebhookEndpoint(t.deps, { merchantId: t.merchant.id, url: 'https://mine.example.test/' });
    const theirs = await addWebhookEndpoint(t.deps, {
      merchantId: other.merchant.id,
      url: 'https://theirs.example.test/',
    });
    await addMerchantUser(t.deps, [t.merchant.id]);
    const c = new ConsoleClient(t.app);
    await c.logIn('shop@example.test');

    const list = await c.get('/dashboard/webhooks');
    expect(list.body).toContain('https://mine.example.test/');
    expect(list.body).not.toContain('theirs.example.test');
    expect(list.body).not.toContain(other.merchant.id);

    const unknown = await c.get('/dashboard/webhooks/we_unknown000');
    expect(unknown.statusCode).toBe(404);
    const detail = await c.get(`/dashboard/webhooks/${theirs.id}`);
    expect(detail.statusCode).toBe(404);
    expect(mainOf(detail.body)).toBe(mainOf(unknown.body));
    for (const action of ['remove', 'resend-failed']) {
      expect((await c.post(`/dashboard/webhooks/${theirs.id}/${action}`, {}, '/dashboard/webhooks')).statusCode).toBe(
        404,
      );
    }
    const add = await c.post(
      '/dashboard/webhooks',
      { merchant: other.merchant.id, url: 'https://sneaky.example.test/', events: ALL_EVENTS },
      '/dashboard/webhooks',
    );
    expect(add.statusCode).toBe(404);
    expect((await endpoints(t)).map((e) => [e.url, e.status])).toEqual([
      ['https://mine.example.test/', 'active'],
      ['https://theirs.example.test/', 'active'],
    ]);
    expect((await c.get(`/dashboard/webhooks/${mine.id}`)).statusCode).toBe(200);
    // Its own merchant it may add to.
    expect(
      (
        await c.post(
          '/dashboard/webhooks',
          { merchant: t.merchant.id, url: 'https://mine2.example.test/', events: ['transaction.paid'] },
          '/dashboard/webhooks',
        )
      ).statusCode,
    ).toBe(201);
  });
});
