import pg from 'pg';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createInput, createTestApp, onPostgres, seedMerchant, type TestApp } from '../../helpers/context.js';
import { addMerchantUser, addOperator, ConsoleClient, noticeOf as notice, TEST_ACTOR } from '../../helpers/console.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { cancelTransaction } from '../../../src/services/transactions/cancel-transaction.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { assignCandidates } from '../../../src/services/payments/assign-candidates.js';
import { readTransaction } from '../../../src/storage/queries/transactions.js';
import type { Mode } from '../../../src/storage/schema.js';

const MINUTE = 60_000;

/** A page's <main>, the part that differs between answers (the frame carries the URL and a fresh token). */
const mainOf = (body: string) => /<main id="content">([\s\S]*)<\/main>/.exec(body)?.[1] ?? '';
const audits = (t: TestApp, action: string) =>
  t.deps.db.selectFrom('audit_log').selectAll().where('action', '=', action).execute();

describe('console payments', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  async function transaction(merchantId: string, amount: number, mode: Mode = 'test') {
    return (await createTransaction(t.deps, createInput(merchantId, amount, { mode }))).transaction;
  }

  /**
   * A payment of `total` learned after the transaction's reservation lapsed, though it was paid while
   * the transaction was open (a feed catching up): unmatched, with that transaction as its candidate.
   */
  async function latePayment(
    merchantId: string,
    mode: Mode,
    total: number,
    paidAt: number,
    id = `late-${total}-${paidAt}`,
  ) {
    const result = await recordPayment(t.deps, {
      merchantId,
      mode,
      source: 'console-test',
      sourcePaymentId: id,
      amount: total,
      paidAt,
      reference: 'REF<b>1</b>',
      payerName: 'Budi',
      issuer: 'DANA',
    });
    expect(result.outcome).toBe('unmatched');
    return result.payment;
  }

  async function operator(): Promise<ConsoleClient> {
    await addOperator(t.deps);
    const c = new ConsoleClient(t.app);
    expect((await c.logIn('ops@example.test')).statusCode).toBe(303);
    return c;
  }

  /** Posts the assign form of `paymentId` as the page at `from` has it, and follows the redirect. */
  async function assign(
    c: ConsoleClient,
    paymentId: string,
    trxid: string,
    from = '/dashboard/payments?status=unmatched',
  ) {
    const res = await c.post(`/dashboard/payments/${paymentId}/assign`, { trxid, back: from }, from);
    if (res.statusCode !== 303) return { res, page: null };
    // A fragment is the browser's to scroll to, never sent.
    return { res, page: await c.get((res.headers.location as string).replace(/#.*$/, '')) };
  }

  // The logged-out page: route-common.test.ts.
  it('logged out, the form sends to the login', async () => {
    t = await createTestApp();
    const c = new ConsoleClient(t.app);
    const post = await c.post('/dashboard/payments/pay_x/assign', { trxid: 'trx_x' });
    expect(post.statusCode).toBe(303);
    expect(post.headers.location).toMatch(/^\/dashboard\?next=/);
  });

  it('shows an unmatched payment with its details and candidates; Assign pays the transaction and is audited', async () => {
    t = await createTestApp();
    const tx = await transaction(t.merchant.id, 10_000);
    t.clock.advance((t.config.transactionTtlSeconds + t.config.reservationGraceSeconds) * 1000 + MINUTE);
    const payment = await latePayment(t.merchant.id, 'test', tx.total_amount, tx.created_at + MINUTE);
    const c = await operator();
    expect(payment.reason).toBe('no_matching_transaction');

    const page = await c.get('/dashboard/payments?status=unmatched');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Payments</h1>');
    expect(page.body).toContain(`id="pay-${payment.id}"`);
    expect(page.body).toContain(`Rp${tx.total_amount.toLocaleString('id-ID')}`);
    expect(page.body).toContain('REF&lt;b&gt;1&lt;/b&gt;');
    expect(page.body).not.toContain('REF<b>1</b>');
    expect(page.body).toContain('Budi');
    expect(page.body).toContain('DANA');
    expect(page.body).toContain('No open transaction had this total.');
    expect(page.body).toContain(`<label for="assign-${payment.id}">Transaction</label>`);
    expect(page.body).toMatch(/<button type="submit">Assign<\/button>/);
    // The one candidate is listed and prefilled.
    expect(page.body).toContain(`<td class="mono" data-label="Transaction">${tx.id}</td>`);
    expect(page.body).toMatch(new RegExp(`id="assign-${payment.id}"[^>]*value="${tx.id}"`));

    const { res, page: after } = await assign(c, payment.id, tx.id);
    expect(res.headers.location).toBe('/dashboard/payments?status=unmatched');
    expect(notice(after!.body)).toBe(`Payment ${payment.id} now pays ${tx.id}; the transaction is paid (late).`);
    expect(after!.body).toContain('class="notice success" role="status"');
    expect(after!.body).not.toContain(`id="pay-${payment.id}"`);
    const paid = await readTransaction(t.deps.db, tx.id);
    expect(paid).toMatchObject({ status: 'paid', payment_id: payment.id, paid_late: 1 });
    expect(await audits(t, 'payment.assign')).toMatchObject([
      { actor: 'user:ops@example.test', subject_id: payment.id },
    ]);
    // The notice is shown once.
    expect(notice((await c.get('/dashboard/payments?status=unmatched')).body)).toBeNull();
    // Listed as matched now, with its transaction paid.
    const matched = await c.get('/dashboard/payments?status=matched');
    expect(matched.body).toContain(`href="/dashboard/transactions/${tx.id}"`);
    expect(matched.body).toContain('<span class="badge paid">paid late</span>');
  });

  it('refuses what assign refuses, with a notice, and changes nothing', async () => {
    t = await createTestApp();
    const other = await seedMerchant(t.deps, 1, 'Other Shop');
    const tx = await transaction(t.merchant.id, 20_000);
    const otherTotal = await transaction(t.merchant.id, 30_000);
    const foreign = await transaction(other.merchant.id, 20_000);
    t.clock.advance((t.config.transactionTtlSeconds + t.config.reservationGraceSeconds) * 1000 + MINUTE);
    const payment = await latePayment(t.merchant.id, 'test', tx.total_amount, tx.created_at + MINUTE);
    const c = await operator();

    const cases: Array<[string, string]> = [
      ['', 'Enter the id of the transaction this payment pays.'],
      ['not an id', '“not an id” is not a transaction id: they look like trx_….'],
      ['trx_unknown000', "There is no transaction trx_unknown000 of this payment's merchant and mode."],
      [
        otherTotal.id,
        `The amount of payment ${payment.id} differs from the total of ${otherTotal.id}. Nothing was changed: confirm the difference to assign it.`,
      ],
    ];
    for (const [trxid, message] of cases) {
      const { page } = await assign(c, payment.id, trxid);
      expect(notice(page!.body)).toBe(message);
      expect(page!.body).toContain('class="notice error" role="alert"');
    }
    // Another merchant's transaction is refused exactly as an unknown one.
    const { page: foreignPage } = await assign(c, payment.id, foreign.id);
    expect(notice(foreignPage!.body)).toBe(
      `There is no transaction ${foreign.id} of this payment's merchant and mode.`,
    );
    expect((await readTransaction(t.deps.db, foreign.id))!.status).not.toBe('paid');
    expect((await readTransaction(t.deps.db, tx.id))!.status).not.toBe('paid');
    expect(await audits(t, 'payment.assign')).toEqual([]);

    // Once assigned, a second assign is refused.
    await assign(c, payment.id, tx.id);
    const { page: again } = await assign(c, payment.id, tx.id);
    expect(notice(again!.body)).toBe('This payment is already matched to a transaction; nothing was changed.');
    expect(await audits(t, 'payment.assign')).toHaveLength(1);
  });

  // issue 28, section 2: a payment of another amount than the total is assigned only after a person
  // accepts the difference the form names.
  it('a payment of another amount: the form names the difference and assigns only once it is accepted, for that difference', async () => {
    t = await createTestApp();
    const tx = await transaction(t.merchant.id, 25_000);
    const other = await transaction(t.merchant.id, 40_000);
    t.clock.advance((t.config.transactionTtlSeconds + t.config.reservationGraceSeconds) * 1000 + MINUTE);
    const short = tx.total_amount - 123;
    const payment = await latePayment(t.merchant.id, 'test', short, tx.created_at + MINUTE);
    const c = await operator();
    const from = '/dashboard/payments?status=unmatched';
    const checkbox = new RegExp(
      `<input type="checkbox" id="assign-${payment.id}-accept" name="accept_difference" value="-123" required`,
    );

    // No checkbox before the transaction is named.
    expect((await c.get(from)).body).not.toContain('name="accept_difference"');
    const { res, page } = await assign(c, payment.id, tx.id);
    expect(res.headers.location).toBe(
      `/dashboard/payments?status=unmatched&confirm=${payment.id}&trxid=${tx.id}#pay-${payment.id}`,
    );
    expect(notice(page!.body)).toBe(
      `The amount of payment ${payment.id} differs from the total of ${tx.id}. Nothing was changed: confirm the difference to assign it.`,
    );
    const rp = (n: number) => `Rp${n.toLocaleString('id-ID')}`;
    expect(page!.body).toContain(
      `Payment ${rp(short)} is Rp123 less than the total ${rp(tx.total_amount)} of transaction ${tx.id}.`,
    );
    expect(page!.body).toMatch(checkbox);
    expect(page!.body).toContain(
      `<label for="assign-${payment.id}-accept" class="inline">Accept the difference of Rp123</label>`,
    );
    expect(page!.body).toMatch(new RegExp(`id="assign-${payment.id}"[^>]*value="${tx.id}"`));
    expect((await readTransaction(t.deps.db, tx.id))!.status).not.toBe('paid');
    // In Indonesian too.
    const idPage = await c.get(`/dashboard/payments?status=unmatched&confirm=${payment.id}&trxid=${tx.id}`, {
      cookie: `${c.jar.header()}; qg_lang=id`,
    });
    expect(idPage.body).toContain('>Terima selisih Rp123</label>');
    expect(idPage.body).toContain(
      `Pembayaran ${rp(short)} kurang Rp123 dari total ${rp(tx.total_amount)} transaksi ${tx.id}.`,
    );
    // A confirmation names a payment on the page and an unpaid transaction of its merchant: anything else shows none.
    for (const q of [
      `confirm=pay_nope&trxid=${tx.id}`,
      `confirm=${payment.id}&trxid=trx_nope`,
      `confirm=${payment.id}&trxid=<x>`,
    ]) {
      expect((await c.get(`/dashboard/payments?status=unmatched&${q}`)).body).not.toContain('name="accept_difference"');
    }

    // An acceptance of another difference (the form's transaction changed after confirming) is refused again.
    const changed = await c.post(
      `/dashboard/payments/${payment.id}/assign`,
      { trxid: other.id, back: from, accept_difference: '-123' },
      from,
    );
    expect(changed.headers.location).toBe(
      `/dashboard/payments?status=unmatched&confirm=${payment.id}&trxid=${other.id}#pay-${payment.id}`,
    );
    expect((await readTransaction(t.deps.db, other.id))!.status).not.toBe('paid');
    expect(await audits(t, 'payment.assign')).toEqual([]);

    const accepted = await c.post(
      `/dashboard/payments/${payment.id}/assign`,
      { trxid: tx.id, back: from, accept_difference: '-123' },
      from,
    );
    expect(accepted.headers.location).toBe(from);
    const after = await c.get(from);
    expect(notice(after.body)).toBe(
      `Payment ${payment.id} now pays ${tx.id}; the transaction is paid, underpaid by Rp123.`,
    );
    expect(await readTransaction(t.deps.db, tx.id)).toMatchObject({
      status: 'paid',
      payment_id: payment.id,
      amount_paid: short,
      underpaid: 123,
      overpaid: 0,
    });
    const [audit] = await audits(t, 'payment.assign');
    expect(audit).toMatchObject({ actor: 'user:ops@example.test', subject_id: payment.id });
    expect(JSON.parse(audit!.details!)).toMatchObject({ trxid: tx.id, amount: short, underpaid: 123, overpaid: 0 });
  });

  // issue 23, finding 10: on PostgreSQL both assigns read the payment unmatched, both paid their
  // transaction, and the one that bound the payment second answered 500.
  it('two assigns of one payment at once, to two transactions of its total: one pays, the other is refused; money stays right', async () => {
    t = await createTestApp();
    const a = await transaction(t.merchant.id, 20_000);
    const b = await transaction(t.merchant.id, 21_000);
    // Two unpaid transactions of one total: an order that lapsed and its retry can come to share one.
    await t.deps.db.updateTable('transactions').set({ total_amount: a.total_amount }).where('id', '=', b.id).execute();
    t.clock.advance((t.config.transactionTtlSeconds + t.config.reservationGraceSeconds) * 1000 + MINUTE);
    const payment = await latePayment(t.merchant.id, 'test', a.total_amount, a.created_at + MINUTE);
    // Two sessions of the operator (two tabs, or two colleagues): each reads its own notice.
    const c = await operator();
    const other = new ConsoleClient(t.app);
    expect((await other.logIn('ops@example.test')).statusCode).toBe(303);
    // On PostgreSQL the race is made certain: the payment's row is held by another connection until
    // both assigns have paid their transaction and wait to bind it.
    const holder = onPostgres ? new pg.Client({ connectionString: t.databaseUrl }) : null;
    try {
      let holderPid = 0;
      if (holder) {
        await holder.connect();
        await holder.query('begin');
        await holder.query('select id from payments where id = $1 for update', [payment.id]);
        holderPid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      }
      const both = Promise.all([assign(c, payment.id, a.id), assign(other, payment.id, b.id)]);
      if (holder) {
        // Waiting on the holder, or in the queue behind one that waits on it.
        const waiting = async () =>
          (
            await sql<{
              n: number;
            }>`select count(*)::int as n from pg_stat_activity a where ${holderPid} = any(pg_blocking_pids(a.pid))
              or exists (select 1 from pg_stat_activity w where ${holderPid} = any(pg_blocking_pids(w.pid)) and w.pid = any(pg_blocking_pids(a.pid)))`.execute(
              t.deps.db,
            )
          ).rows[0]!.n;
        await vi.waitFor(async () => expect(await waiting()).toBe(2), { timeout: 10_000, interval: 20 });
        await holder.query('commit');
      }
      const results = await both;
      expect(results.map((r) => r.res.statusCode)).toEqual([303, 303]);
      const notices = results.map((r) => notice(r.page!.body)).sort();
      expect(notices[0]).toMatch(/^Payment pay_\w+ now pays trx_\w+; the transaction is paid/);
      expect(notices[1]).toBe('This payment is already matched to a transaction; nothing was changed.');
    } finally {
      await holder?.query('rollback').catch(() => {});
      await holder?.end();
    }
    // Exactly one transaction is paid, by this payment, once; the loser's payment of its transaction was rolled back.
    const paid = (await Promise.all([a.id, b.id].map((id) => readTransaction(t.deps.db, id)))).filter(
      (x) => x!.status === 'paid',
    );
    expect(paid).toHaveLength(1);
    const stored = await t.deps.db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', payment.id)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ status: 'matched', transaction_id: paid[0]!.id });
    expect(paid[0]!.payment_id).toBe(payment.id);
    expect(await audits(t, 'payment.assign')).toHaveLength(1);
  });

  it('speaks Indonesian when asked', async () => {
    t = await createTestApp();
    const payment = await latePayment(t.merchant.id, 'test', 12_345, t.clock.now() - MINUTE);
    const c = await operator();
    const page = await c.get('/dashboard/payments?status=unmatched', { 'accept-language': 'id' });
    expect(page.body).toContain('<h1>Pembayaran</h1>');
    expect(page.body).toContain(`<label for="assign-${payment.id}">Transaksi</label>`);
    expect(page.body).toMatch(/<button type="submit">Tetapkan<\/button>/);
    expect(page.body).toContain('Tidak ada transaksi terbuka dengan total ini.');
    // Notices are written in the language of the one who acted.
    await c.get('/dashboard/lang/id?back=%2Fdashboard');
    const { page: after } = await assign(c, payment.id, 'trx_unknown000');
    expect(notice(after!.body)).toBe('Tidak ada transaksi trx_unknown000 milik merchant dan mode pembayaran ini.');
  });

  it('shows no notice from a cookie it did not sign', async () => {
    t = await createTestApp();
    const c = await operator();
    const forged = Buffer.from(JSON.stringify({ kind: 'error', text: 'Call +62 800 to unlock your account' })).toString(
      'base64url',
    );
    for (const value of [forged, `s:${forged}.bad-signature`]) {
      const res = await t.app.inject({
        url: '/dashboard/payments',
        headers: { cookie: `${c.jar.header()}; qg_notice=${value}` },
      });
      expect(res.statusCode).toBe(200);
      expect(notice(res.body)).toBeNull();
      expect(res.body).not.toContain('unlock your account');
    }
  });

  it('refuses a form without its CSRF token', async () => {
    t = await createTestApp();
    const tx = await transaction(t.merchant.id, 10_000);
    t.clock.advance((t.config.transactionTtlSeconds + t.config.reservationGraceSeconds) * 1000 + MINUTE);
    const payment = await latePayment(t.merchant.id, 'test', tx.total_amount, tx.created_at + MINUTE);
    const c = await operator();
    const res = await t.app.inject({
      method: 'POST',
      url: `/dashboard/payments/${payment.id}/assign`,
      headers: { cookie: c.jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `trxid=${tx.id}`,
    });
    expect(res.statusCode).toBe(403);
    expect((await readTransaction(t.deps.db, tx.id))!.status).toBe('pending');
  });

  it("a merchant user sees only its merchants' payments, and another merchant's payment is a 404", async () => {
    t = await createTestApp();
    const other = await seedMerchant(t.deps, 1, 'Other Shop');
    const mine = await latePayment(t.merchant.id, 'test', 11_111, t.clock.now() - MINUTE, 'mine');
    const theirs = await latePayment(other.merchant.id, 'test', 22_222, t.clock.now() - MINUTE, 'theirs');
    const theirTx = await transaction(other.merchant.id, 5_000);
    await addMerchantUser(t.deps, [t.merchant.id]);
    const c = new ConsoleClient(t.app);
    await c.logIn('shop@example.test');

    const page = await c.get('/dashboard/payments');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(mine.id);
    expect(page.body).not.toContain(theirs.id);
    expect(page.body).not.toContain('Other Shop');

    const foreign = await c.post(
      `/dashboard/payments/${theirs.id}/assign`,
      { trxid: theirTx.id, back: '/dashboard/payments' },
      '/dashboard/payments',
    );
    const unknown = await c.post(
      '/dashboard/payments/pay_doesnotexist0/assign',
      { trxid: theirTx.id, back: '/dashboard/payments' },
      '/dashboard/payments',
    );
    expect(foreign.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
    expect(mainOf(foreign.body)).toContain('Not found');
    expect(mainOf(foreign.body)).toBe(mainOf(unknown.body));
    expect(
      (await t.deps.db.selectFrom('payments').select('status').where('id', '=', theirs.id).executeTakeFirstOrThrow())
        .status,
    ).toBe('unmatched');
  });

  it('filters by status and mode, newest first, with cursor pages', async () => {
    t = await createTestApp();
    const c = await operator();
    const ids: string[] = [];
    for (let i = 0; i < 27; i++) {
      t.clock.advance(1000);
      ids.push((await latePayment(t.merchant.id, 'test', 50_000 + i, t.clock.now(), `p${i}`)).id);
    }
    const live = await latePayment(t.merchant.id, 'live', 70_000, t.clock.now(), 'live-one');
    const order = (body: string) => [...body.matchAll(/href="#pay-(pay_[0-9A-Za-z]+)"/g)].map((m) => m[1]);

    const first = await c.get('/dashboard/payments?status=unmatched&mode=test');
    expect(order(first.body)).toEqual(ids.slice().reverse().slice(0, 25));
    const older = /<a href="([^"]+)">Older payments<\/a>/.exec(first.body)![1]!.replace(/&amp;/g, '&');
    expect(older).toMatch(/^\/dashboard\/payments\?status=unmatched&mode=test&before=/);
    const second = await c.get(older);
    expect(order(second.body)).toEqual([ids[1], ids[0]]);
    expect(second.body).not.toContain('Older payments');
    expect(second.body).toContain('Newest payments');

    const liveOnly = await c.get('/dashboard/payments?mode=live');
    expect(order(liveOnly.body)).toEqual([live.id]);
    expect((await c.get('/dashboard/payments?status=matched')).body).toContain('No matched payments to show.');
    // Unknown filter values and a malformed cursor are ignored.
    expect(order((await c.get('/dashboard/payments?status=bogus&before=x.y')).body)).toHaveLength(25);
  });

  it('keeps the transaction a refused payment was compared with, and links it in the list and on its card', async () => {
    t = await createTestApp();
    const named = await transaction(t.merchant.id, 15_000);
    const paid = await transaction(t.merchant.id, 16_000);
    await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 'console-test',
      sourcePaymentId: 'first',
      amount: paid.total_amount,
      paidAt: t.clock.now(),
    });
    // It names a transaction of another total: refused for that transaction.
    const mismatched = await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 'console-test',
      sourcePaymentId: 'mismatch',
      amount: named.total_amount + 1,
      paidAt: t.clock.now(),
      trxid: named.id,
    });
    // Its total's holder is paid already: refused for that one.
    const again = await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 'console-test',
      sourcePaymentId: 'again',
      amount: paid.total_amount,
      paidAt: t.clock.now(),
    });
    // Nothing holds its total: compared with nothing.
    const stray = await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 'console-test',
      sourcePaymentId: 'stray',
      amount: 1_234,
      paidAt: t.clock.now(),
    });
    expect([mismatched.reason, again.reason, stray.reason]).toEqual([
      'amount_mismatch',
      'transaction_already_paid',
      'no_matching_transaction',
    ]);
    const stored = async (id: string) =>
      (
        await t.deps.db
          .selectFrom('payments')
          .select('compared_transaction_id')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).compared_transaction_id;
    expect(await stored(mismatched.payment.id)).toBe(named.id);
    expect(await stored(again.payment.id)).toBe(paid.id);
    expect(await stored(stray.payment.id)).toBeNull();

    const c = await operator();
    const page = mainOf((await c.get('/dashboard/payments?status=unmatched')).body);
    const row = (id: string) =>
      new RegExp(`<tr>(?:(?!</tr>)[\\s\\S])*#pay-${id}(?:(?!</tr>)[\\s\\S])*</tr>`).exec(page)?.[0] ?? '';
    const link = (trxid: string) =>
      `<div class="compared">Compared with <a class="mono" href="/dashboard/transactions/${trxid}">${trxid}</a></div>`;
    expect(row(mismatched.payment.id)).toContain(link(named.id));
    expect(row(again.payment.id)).toContain(link(paid.id));
    expect(row(stray.payment.id)).not.toContain('Compared with');
    const card = (id: string) =>
      new RegExp(`<section class="card review" id="pay-${id}"[\\s\\S]*?</section>`).exec(page)?.[0] ?? '';
    expect(card(mismatched.payment.id)).toContain(`The transaction it named has another total.${link(named.id)}`);
    expect(card(stray.payment.id)).not.toContain('Compared with');
    // The link opens the transaction it names.
    expect((await c.get(`/dashboard/transactions/${named.id}`)).statusCode).toBe(200);
  });
});

describe('assign candidates', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('are unpaid transactions of the same merchant, mode and total that held it when the payment was made', async () => {
    t = await createTestApp();
    const other = await seedMerchant(t.deps, 1, 'Other Shop');
    const make = async (merchantId: string, amount: number, mode: Mode = 'test') =>
      (await createTransaction(t.deps, createInput(merchantId, amount, { mode }))).transaction;
    const grace = t.config.reservationGraceSeconds * 1000;

    const ancient = await make(t.merchant.id, 10_000);
    t.clock.advance(t.config.expiresInMaxSeconds * 1000 + grace + 10 * MINUTE);
    const open = await make(t.merchant.id, 10_000);
    const cancelled = await make(t.merchant.id, 10_000);
    await cancelTransaction(t.deps, { trxid: cancelled.id, owner: null, actor: TEST_ACTOR });
    const paid = await make(t.merchant.id, 10_000);
    await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 's',
      sourcePaymentId: 'pays-it',
      amount: paid.total_amount,
      paidAt: t.clock.now(),
      trxid: paid.id,
    });
    const otherMode = await make(t.merchant.id, 10_000, 'live');
    const otherMerchant = await make(other.merchant.id, 10_000);

    const paidAt = t.clock.now() + MINUTE;
    const ids = async (amount: number, at = paidAt) =>
      (await assignCandidates(t.deps, { merchant_id: t.merchant.id, mode: 'test', amount, paid_at: at })).map(
        (x) => x.id,
      );
    expect(await ids(open.total_amount)).toEqual([open.id]);
    expect(await ids(cancelled.total_amount)).toContain(cancelled.id);
    for (const tx of [ancient, paid, otherMode, otherMerchant]) expect(await ids(tx.total_amount)).not.toContain(tx.id);

    // Paid long after the cancel's grace ran out: the cancelled one is no candidate; the open one ends later.
    const late = cancelled.created_at + grace + 2 * MINUTE;
    expect(await ids(cancelled.total_amount, late)).not.toContain(cancelled.id);
    // A transaction created well after the payment's time is no candidate; one created a few minutes after is.
    expect(await ids(open.total_amount, open.created_at - 20 * MINUTE)).not.toContain(open.id);
    expect(await ids(open.total_amount, open.created_at - 5 * MINUTE)).toContain(open.id);
  });

  it("offer a pending transaction of the price paid without its unique code, and those within the codes' range, nearest first", async () => {
    t = await createTestApp();
    const make = async (amount: number) =>
      (await createTransaction(t.deps, createInput(t.merchant.id, amount))).transaction;
    const price = await make(50_000);
    const near = await make(50_100);
    const far = await make(50_000 + t.config.uniqueCodeMax + 2_000);
    const cancelled = await make(50_000);
    await cancelTransaction(t.deps, { trxid: cancelled.id, owner: null, actor: TEST_ACTOR });
    const candidates = (
      await assignCandidates(t.deps, {
        merchant_id: t.merchant.id,
        mode: 'test',
        amount: 50_000,
        paid_at: t.clock.now(),
      })
    ).map((x) => x.id);
    // Nearest first: by how far each total is from the payment (the codes are random).
    const distance = (tx: { total_amount: number }) => Math.abs(tx.total_amount - 50_000);
    const expected = [price, near].sort((a, b) => distance(a) - distance(b)).map((x) => x.id);
    expect(candidates).toEqual(expected);
    expect(candidates).not.toContain(far.id);
    // Only pending ones are offered for a near amount: a cancelled transaction needs its exact total.
    expect(candidates).not.toContain(cancelled.id);
    // The exact total still comes first, before any near one.
    const exact = (
      await assignCandidates(t.deps, {
        merchant_id: t.merchant.id,
        mode: 'test',
        amount: near.total_amount,
        paid_at: t.clock.now(),
      })
    ).map((x) => x.id);
    expect(exact[0]).toBe(near.id);
    expect(exact).toContain(price.id);
  });
});
