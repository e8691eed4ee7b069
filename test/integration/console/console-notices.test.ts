// issue 24, item 3: one kind of notice after a form post. Every console action tells the page it
// redirects to what happened through the signed one-time cookie (src/web/console/notice.ts), never the URL.
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { addOperator, ConsoleClient, noticeOf } from '../../helpers/console.js';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';

describe('console notices after a form post', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('the users, merchant, link, transaction, keys and overview pages say an outcome once; a crafted address makes them say nothing', async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    const other = await addOperator(t.deps, 'other@example.test');
    const c = new ConsoleClient(t.app);
    expect((await c.logIn('ops@example.test')).statusCode).toBe(303);
    const create = async (amount: number) =>
      (
        await t.app.inject({ url: `/api/payment-gateway/cqris?amount=${amount}`, headers: { 'x-api-key': t.testKey } })
      ).json().data.trxid as string;
    const trxid = await create(10_000);
    const paidId = await create(11_000);
    await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, paidId);
    const paid = `/dashboard/transactions/${paidId}`;
    const merchant = `/dashboard/merchants/${t.merchant.id}`;
    const link = `/dashboard/links/${t.merchant.id}`;
    const transaction = `/dashboard/transactions/${trxid}`;

    // The addresses the pages' old redirects used: a link like these, sent to a user, shows nothing.
    for (const url of [
      '/dashboard/users?done=1',
      `${merchant}?done=renamed`,
      `${merchant}?done=disabled`,
      `${link}?done=saved`,
      `${link}?done=removed`,
      `${transaction}?done=cancelled`,
      `${transaction}?done=unmatched&reason=amount_mismatch`,
      `${transaction}?failed=transaction_already_paid`,
      '/dashboard/keys?error=mode',
      '/dashboard?approved=1',
    ]) {
      const page = await c.get(url);
      expect(page.statusCode, url).toBe(200);
      expect(noticeOf(page.body), url).toBeNull();
    }

    const actions: Array<{ post: string; fields: Record<string, string>; back: string; says: string }> = [
      { post: `/dashboard/users/${other.id}/disable`, fields: {}, back: '/dashboard/users', says: 'Done.' },
      { post: `${merchant}/rename`, fields: { name: 'Warung Baru' }, back: merchant, says: 'Renamed to Warung Baru.' },
      { post: link, fields: { handle: 'warung' }, back: link, says: 'The payment link is saved.' },
      {
        post: `${link}/remove`,
        fields: {},
        back: link,
        says: 'The payment link is removed: its address no longer opens a payment.',
      },
      { post: `${transaction}/cancel`, fields: {}, back: transaction, says: 'The transaction is cancelled.' },
      {
        post: `${paid}/cancel`,
        fields: {},
        back: paid,
        says: 'This transaction is already paid. Nothing was changed.',
      },
      {
        post: '/dashboard/keys',
        fields: { merchant: t.merchant.id, mode: 'prod' },
        back: '/dashboard/keys',
        says: 'Choose the mode: test or live.',
      },
    ];
    for (const { post, fields, back, says } of actions) {
      const res = await c.post(post, fields, back);
      expect(res.statusCode, post).toBe(303);
      expect(res.headers.location, post).toBe(back);
      expect(noticeOf((await c.get(back)).body), post).toBe(says);
      // Read once: a reload does not say it again.
      expect(noticeOf((await c.get(back)).body), post).toBeNull();
    }
  });
});
