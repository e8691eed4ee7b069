// One transaction's console page (fields and timeline) and its actions: cancel, confirm by hand, resend.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { createApiKey } from '../../../src/services/merchants/create-api-key.js';
import { sendDueEmails } from '../../../src/services/email/send-due-emails.js';
import { addWebhookEndpoint } from '../../../src/services/webhooks/add-webhook-endpoint.js';
import { dispatchDueDeliveries } from '../../../src/workers/webhook-dispatcher.js';
import { addMerchantUser, addOperator, ConsoleClient } from '../../helpers/console.js';
import { createTestApp, seedMerchant, type TestApp } from '../../helpers/context.js';
import { Receiver } from '../../helpers/receiver.js';

const notice = (body: string) =>
  /<p class="notice (success|error)" role="(?:status|alert)">([^<]*)<\/p>/.exec(body)?.slice(1, 3) ?? null;
/** The timeline's entries as text, tags and time stamps left out, in the order shown. */
const timeline = (body: string) =>
  [
    ...(/<ol class="timeline">([\s\S]*?)<\/ol>/.exec(body)?.[1] ?? '').matchAll(
      /<li class="tl-(\w+)">[\s\S]*?<div class="what">([\s\S]*?)<\/div>/g,
    ),
  ].map(
    (m) =>
      `${m[1]}: ${m[2]!
        .replace(/<[^>]+>/g, '')
        .replace(/\s+/g, ' ')
        .trim()}`,
  );

describe('console transaction page', () => {
  let t: TestApp;
  let receiver: Receiver;
  let ops: ConsoleClient;
  let shop: ConsoleClient;
  let otherMerchant: string;

  beforeEach(async () => {
    t = await createTestApp({ WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8', WEBHOOK_TIMEOUT_MS: '2000' });
    receiver = await Receiver.start();
    otherMerchant = (await seedMerchant(t.deps, 1, 'Other Shop')).merchant.id;
    await addOperator(t.deps);
    await addMerchantUser(t.deps, [t.merchant.id]);
    ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    shop = new ConsoleClient(t.app);
    await shop.logIn('shop@example.test');
  });
  afterEach(async () => {
    await receiver.close();
    await t.close();
  });

  async function create(amount: number, extra = ''): Promise<{ trxid: string; total_amount: number }> {
    const res = await t.app.inject({
      url: `/api/payment-gateway/cqris?amount=${amount}${extra}`,
      headers: { 'x-api-key': t.testKey },
    });
    expect(res.statusCode).toBe(200);
    return res.json().data;
  }
  const dispatch = () => dispatchDueDeliveries(t.deps, { random: () => 0.5 });
  const auditOf = (trxid: string) =>
    t.deps.db.selectFrom('audit_log').selectAll().where('subject_id', '=', trxid).execute();
  const statusOf = async (trxid: string) =>
    (await t.deps.db.selectFrom('transactions').select('status').where('id', '=', trxid).executeTakeFirstOrThrow())
      .status;

  it('shows the fields and a timeline of the e-mails, the payment, the status and every webhook attempt', async () => {
    await addWebhookEndpoint(t.deps, { merchantId: t.merchant.id, url: receiver.url() });
    receiver.sequence({ status: 500, body: 'boom' }, { status: 204 });
    const tx = await create(10_000, '&email=budi%40example.id&ref=ORDER-7');
    await sendDueEmails(t.deps, null); // no SMTP: the invoice is skipped, with its reason
    t.clock.advance(60_000);
    await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, tx.trxid);
    expect((await dispatch()).states).toEqual(['retrying']);
    t.clock.advance(30_000);
    expect((await dispatch()).states).toEqual(['succeeded']);

    const page = await ops.get(`/dashboard/transactions/${tx.trxid}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<dt>Ref</dt><dd><span class="mono">ORDER-7</span></dd>');
    expect(page.body).toContain('<dt>E-mail</dt><dd>budi@example.id</dd>');
    expect(page.body).toContain(`<dt>Total</dt><dd><strong>Rp${tx.total_amount.toLocaleString('id-ID')}</strong></dd>`);
    expect(page.body).toContain('<span class="badge paid">Paid</span>');
    const total = `Rp${tx.total_amount.toLocaleString('id-ID')}`;
    expect(timeline(page.body)).toEqual([
      `created: Created for ${total}`,
      'email: Invoice e-mail to budi@example.id skipped',
      `payment: Payment reported by simulator: ${total}`,
      'paid: Paid',
      'email: Receipt e-mail to budi@example.id queued',
      expect.stringMatching(/^event: Webhook event transaction\.paid evt_/),
    ]);
    expect(page.body).toContain('smtp_not_configured');
    expect(page.body).toContain(`Reference SIM-${tx.trxid.slice(4, 16)}`);
    // Both attempts of the delivery, oldest first, with their codes.
    const attempts = /<table class="attempts">[\s\S]*?<\/table>/.exec(page.body)![0];
    expect(
      [...attempts.matchAll(/<span class="badge (ok|failed)">(\d+)<\/span>/g)].map((m) => `${m[1]} ${m[2]}`),
    ).toEqual(['failed 500', 'ok 204']);
    expect(page.body).toContain(receiver.url());
    expect(page.body).toContain('>Resend</button>');
    // Paid: no cancel and no manual confirmation.
    expect(page.body).not.toContain('/cancel"');
    expect(page.body).not.toContain('for="tx-reference"');

    // The merchant user sees its own transaction too.
    expect((await shop.get(`/dashboard/transactions/${tx.trxid}`)).statusCode).toBe(200);
  });

  it("answers another merchant's, an unknown and a malformed trxid with the same 404 page", async () => {
    await addWebhookEndpoint(t.deps, { merchantId: otherMerchant, url: receiver.url() });
    const key = (await createApiKey(t.deps, { merchantId: otherMerchant, mode: 'test' })).key;
    const otherTrxid = (
      await t.app.inject({ url: '/api/payment-gateway/cqris?amount=5000', headers: { 'x-api-key': key } })
    ).json().data.trxid as string;
    expect((await ops.get(`/dashboard/transactions/${otherTrxid}`)).statusCode).toBe(200);
    const pages = await Promise.all([
      shop.get(`/dashboard/transactions/${otherTrxid}`),
      shop.get('/dashboard/transactions/trx_doesnotexist0000000000'),
      shop.get('/dashboard/transactions/not-a-trxid'),
      ops.get('/dashboard/transactions/trx_%3Cscript%3E'),
    ]);
    for (const res of pages) {
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('<h1>Not found</h1>');
      // The page's own URL is echoed only in the language switch; its content tells nothing.
      expect(/<main[\s\S]*<\/main>/.exec(res.body)![0]).not.toContain(otherTrxid);
    }
    // Nor can it act on it: every action is the same 404, and nothing changes.
    for (const action of ['cancel', 'confirm', 'resend']) {
      const res = await shop.post(
        `/dashboard/transactions/${otherTrxid}/${action}`,
        { reference: 'REF-1', event: 'evt_x' },
        '/dashboard/transactions',
      );
      expect(res.statusCode).toBe(404);
    }
    expect(await statusOf(otherTrxid)).toBe('pending');
    expect(await auditOf(otherTrxid)).toEqual([]);
  });

  it('cancels a pending transaction, audited as the user, and says so', async () => {
    const tx = await create(12_000);
    const before = await ops.get(`/dashboard/transactions/${tx.trxid}`);
    expect(before.body).toMatch(
      /<form method="post" action="\/dashboard\/transactions\/trx_\w+\/cancel" data-confirm="Cancel this transaction\?">/,
    );
    const res = await ops.post(`/dashboard/transactions/${tx.trxid}/cancel`, {}, `/dashboard/transactions/${tx.trxid}`);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/transactions/${tx.trxid}`);
    const after = await ops.get(res.headers.location as string);
    expect(notice(after.body)).toEqual(['success', 'The transaction is cancelled.']);
    expect(await statusOf(tx.trxid)).toBe('cancelled');
    expect((await auditOf(tx.trxid)).map((a) => [a.actor, a.action])).toEqual([
      ['user:ops@example.test', 'transaction.cancel'],
    ]);
    expect(timeline(after.body)).toEqual([
      `created: Created for Rp${tx.total_amount.toLocaleString('id-ID')}`,
      'audit: Cancel requested by user:ops@example.test',
      'cancelled: Cancelled',
      expect.stringMatching(/^event: Webhook event transaction\.cancelled/),
    ]);
  });

  it('turns a refused cancel into a notice and changes nothing; without its CSRF token nothing happens', async () => {
    const paid = await create(13_000);
    await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, paid.trxid);
    const res = await shop.post(`/dashboard/transactions/${paid.trxid}/cancel`, {}, '/dashboard/transactions');
    expect(res.headers.location).toBe(`/dashboard/transactions/${paid.trxid}`);
    expect(notice((await shop.get(res.headers.location as string)).body)).toEqual([
      'error',
      'This transaction is already paid. Nothing was changed.',
    ]);

    const late = await create(14_000);
    t.clock.advance(16 * 60_000);
    const expired = await shop.post(`/dashboard/transactions/${late.trxid}/cancel`, {}, '/dashboard/transactions');
    expect(expired.headers.location).toBe(`/dashboard/transactions/${late.trxid}`);
    expect(await statusOf(late.trxid)).toBe('pending');

    const open = await create(15_000);
    const forged = await t.app.inject({
      method: 'POST',
      url: `/dashboard/transactions/${open.trxid}/cancel`,
      headers: { cookie: shop.jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(forged.statusCode).toBe(403);
    expect(await statusOf(open.trxid)).toBe('pending');
    expect(await auditOf(open.trxid)).toEqual([]);
    // A logged-out post goes to the login form and does nothing.
    const anon = new ConsoleClient(t.app);
    const out = await anon.post(`/dashboard/transactions/${open.trxid}/cancel`, {}, '/dashboard');
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toMatch(/^\/dashboard\?next=/);
    expect(await statusOf(open.trxid)).toBe('pending');
  });

  it('confirms a payment by hand with its reference; a missing or reused reference changes nothing', async () => {
    const tx = await create(16_000);
    const detail = `/dashboard/transactions/${tx.trxid}`;
    expect((await shop.get(detail)).body).toContain('<label for="tx-reference">Reference</label>');

    const empty = await shop.post(`${detail}/confirm`, { reference: '   ' }, detail);
    expect(empty.statusCode).toBe(400);
    expect(notice(empty.body)).toEqual([
      'error',
      'Give the payment reference: 1 to 128 characters, without control characters.',
    ]);
    expect(empty.body).toContain('aria-invalid="true"');
    const long = await shop.post(`${detail}/confirm`, { reference: 'x'.repeat(129) }, detail);
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain(`value="${'x'.repeat(129)}"`);
    expect(await statusOf(tx.trxid)).toBe('pending');

    const ok = await shop.post(`${detail}/confirm`, { reference: 'BCA-778899' }, detail);
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe(detail);
    const page = await shop.get(ok.headers.location as string);
    expect(notice(page.body)).toEqual(['success', 'The payment is recorded and the transaction is paid.']);
    expect(await statusOf(tx.trxid)).toBe('paid');
    expect((await auditOf(tx.trxid)).map((a) => [a.actor, a.action])).toEqual([
      ['user:shop@example.test', 'payment.confirm'],
    ]);
    expect(timeline(page.body)).toContain(
      `payment: Payment confirmed by hand: Rp${tx.total_amount.toLocaleString('id-ID')}`,
    );
    expect(timeline(page.body)).toContain('audit: Payment confirmed by user:shop@example.test');

    // The same bank reference cannot pay a second transaction.
    const second = await create(17_000);
    const again = await shop.post(
      `/dashboard/transactions/${second.trxid}/confirm`,
      { reference: 'BCA-778899' },
      detail,
    );
    expect(again.headers.location).toBe(`/dashboard/transactions/${second.trxid}`);
    expect(await statusOf(second.trxid)).toBe('pending');
    expect(await auditOf(second.trxid)).toEqual([]);
  });

  it("resends an event to its endpoints; the new attempt shows; another transaction's event is a 404", async () => {
    await addWebhookEndpoint(t.deps, { merchantId: t.merchant.id, url: receiver.url() });
    const tx = await create(18_000);
    await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, tx.trxid);
    await dispatch();
    expect(receiver.requests).toHaveLength(1);
    const detail = `/dashboard/transactions/${tx.trxid}`;
    const eventId = /name="event" value="(evt_\w+)"/.exec((await ops.get(detail)).body)![1]!;

    const res = await ops.post(`${detail}/resend`, { event: eventId }, detail);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(detail);
    expect(notice((await ops.get(res.headers.location as string)).body)).toEqual([
      'success',
      'Queued the webhook delivery to send now.',
    ]);
    const audit = await t.deps.db.selectFrom('audit_log').selectAll().where('subject_id', '=', eventId).execute();
    expect(audit.map((a) => [a.actor, a.action])).toEqual([['user:ops@example.test', 'webhook.resend']]);
    await dispatch();
    expect(receiver.eventIds()).toEqual([eventId, eventId]);
    const page = await ops.get(detail);
    expect(page.body.match(/<span class="badge ok">200<\/span>/g)).toHaveLength(2);
    expect(timeline(page.body)).toContain('audit: Webhook resent by user:ops@example.test');

    // An event id of another transaction, or none, is not found here.
    const otherTx = await create(19_000);
    const wrong = await ops.post(`/dashboard/transactions/${otherTx.trxid}/resend`, { event: eventId }, detail);
    expect(wrong.statusCode).toBe(404);
    expect((await ops.post(`${detail}/resend`, { event: '' }, detail)).statusCode).toBe(404);
    expect(receiver.requests).toHaveLength(2);
  });

  it('speaks Indonesian', async () => {
    const tx = await create(20_000);
    const page = await ops.get(`/dashboard/transactions/${tx.trxid}`, { 'accept-language': 'id-ID' });
    expect(page.body).toContain('<h2>Riwayat</h2>');
    expect(page.body).toContain('>Batalkan</button>');
    expect(page.body).toContain('<label for="tx-reference">Referensi</label>');
  });
});
