import { afterEach, describe, expect, it } from 'vitest';
import { createMerchant } from '../../../src/services/merchants/create-merchant.js';
import { setDailyQuota } from '../../../src/services/merchants/set-daily-quota.js';
import { createApiKey } from '../../../src/services/merchants/create-api-key.js';
import { createTestApp, type TestApp, vectors } from '../../helpers/context.js';
import { addMerchantUser, addOperator, ConsoleClient, csrfOf, noticeOf, TEST_ACTOR } from '../../helpers/console.js';
import { staticQrisWithNmid } from '../../helpers/qris.js';
import { loadConfig } from '../../../src/config.js';
import { statusFor } from '../../../src/wire/error-status.js';

describe('live-key approvals', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('the queue is a page of its own for operators, counted in their navigation; an operator approves one; a merchant user cannot', async () => {
    t = await createTestApp({ LIVE_KEYS: 'approval' });
    await addOperator(t.deps);
    const waiting = await createMerchant(t.deps, {
      name: 'Toko Baru',
      qris: vectors.vectors[1]!.static,
      liveApproved: false,
    });
    expect(waiting.live_approved_at).toBeNull();
    // Operator-made merchants are approved when made.
    expect(t.merchant.live_approved_at).not.toBeNull();

    await addMerchantUser(t.deps, [waiting.id]);
    const shop = new ConsoleClient(t.app);
    await shop.logIn('shop@example.test');
    const shopOverview = (await shop.get('/dashboard')).body;
    expect(shopOverview).not.toContain('Open the approval queue');
    expect(shopOverview).not.toContain('/dashboard/approvals');
    expect((await shop.get('/dashboard/approvals')).statusCode).toBe(404);
    expect((await shop.post(`/dashboard/approvals/${waiting.id}`, {})).statusCode).toBe(404);

    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    const overview = await ops.get('/dashboard');
    expect(overview.body).toContain('Merchants waiting for your approval: 1.');
    expect(overview.body).toContain('<a href="/dashboard/approvals">Approvals (1)</a>');
    const queue = await ops.get('/dashboard/approvals');
    expect(queue.statusCode).toBe(200);
    expect(queue.body).toContain('Waiting for approval (1)');
    expect(queue.body).toContain(`<a href="/dashboard/merchants/${waiting.id}">Toko Baru</a>`);
    expect(queue.body).toContain('shop@example.test');
    const approved = await ops.post(`/dashboard/approvals/${waiting.id}`, {}, '/dashboard/approvals');
    expect(approved.statusCode).toBe(303);
    expect(approved.headers.location).toBe('/dashboard/approvals');
    const after = await ops.get('/dashboard/approvals');
    expect(noticeOf(after.body)).toBe('Approved Toko Baru: its live keys work now.');
    expect(after.body).toContain('No merchant waits for approval.');
    expect(after.body).toContain('Approvals (0)');
    const audit = await t.deps.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'merchant.approve_live')
      .execute();
    expect(audit.map((a) => [a.actor, a.subject_id])).toEqual([['user:ops@example.test', waiting.id]]);
    expect((await ops.post('/dashboard/approvals/mch_nope', {})).statusCode).toBe(404);
    expect((await ops.post('/dashboard/approvals/mch_nope/reject', {})).statusCode).toBe(404);
    expect((await ops.post('/dashboard/approvals/mch_nope/ask-again', {})).statusCode).toBe(404);
  });

  it('with LIVE_KEYS=auto and nobody waiting the navigation has no Approvals; the page still answers an operator', async () => {
    t = await createTestApp({ LIVE_KEYS: 'auto' });
    await addOperator(t.deps);
    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    expect((await ops.get('/dashboard')).body).not.toContain('/dashboard/approvals');
    expect((await ops.get('/dashboard/approvals')).body).toContain('No merchant waits for approval.');
  });

  // issue 26, item 10: who signed up and when, the NMID, and the same NMID saved twice, before deciding.
  it('lists who signed up, the merchant, its NMID and when it was added, flagging a duplicate NMID with links to the other merchants', async () => {
    t = await createTestApp({ LIVE_KEYS: 'approval', SIGNUP: 'invite' });
    await addOperator(t.deps);
    const shared = staticQrisWithNmid('ID1029900000077', 'Warung Kembar');
    await addMerchantUser(t.deps, [t.merchant.id], 'shop@example.test');
    const shop = new ConsoleClient(t.app);
    await shop.logIn('shop@example.test');
    expect(
      (await shop.post('/dashboard/merchants', { name: 'Warung Kembar', qris: shared }, '/dashboard/merchants/new'))
        .statusCode,
    ).toBe(303);
    const mine = await t.deps.db
      .selectFrom('merchants')
      .selectAll()
      .where('name', '=', 'Warung Kembar')
      .executeTakeFirstOrThrow();
    // An operator saves the same sticker again, deciding to: allowed, and the queue shows it.
    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    const twin = await ops.post(
      '/dashboard/merchants',
      { name: 'Kembar Dua', qris: shared, allowDuplicateNmid: '1' },
      '/dashboard/merchants/new',
    );
    expect(twin.statusCode).toBe(303);
    const other = await t.deps.db
      .selectFrom('merchants')
      .selectAll()
      .where('name', '=', 'Kembar Dua')
      .executeTakeFirstOrThrow();
    const alone = await createMerchant(t.deps, {
      name: 'Sendiri',
      qris: vectors.vectors[2]!.static,
      liveApproved: false,
    });

    const page = (await ops.get('/dashboard/approvals')).body;
    const rows = page.split('<tr>').slice(1);
    const rowOf = (name: string) => rows.find((r) => r.includes(`>${name}</a>`))!;
    const kembar = rowOf('Warung Kembar');
    expect(kembar).toContain('shop@example.test');
    expect(kembar).toMatch(/signed up \d{1,2} \w{3} \d{4}/);
    expect(kembar).toContain('ID1029900000077');
    expect(kembar).toContain('duplicate NMID');
    expect(kembar).toContain(`also saved as: <a href="/dashboard/merchants/${other.id}">Kembar Dua</a>`);
    expect(kembar).toContain(`action="/dashboard/approvals/${mine.id}/reject"`);
    // No member (made at the shell), no duplicate.
    const sendiri = rowOf('Sendiri');
    expect(sendiri).toContain('no user left');
    expect(sendiri).not.toContain('duplicate NMID');
    expect(page).toContain('Waiting for approval (2)');
    expect(alone.live_approved_at).toBeNull();
  });

  it('Reject takes a merchant out of the queue and its live keys answer 403 live_rejected everywhere it showed as waiting; Ask again puts it back', async () => {
    t = await createTestApp({ LIVE_KEYS: 'approval' });
    await addOperator(t.deps);
    const waiting = await createMerchant(t.deps, {
      name: 'Toko Tolak',
      qris: vectors.vectors[1]!.static,
      liveApproved: false,
    });
    const live = (await createApiKey(t.deps, { merchantId: waiting.id, mode: 'live' })).key;
    const test = (await createApiKey(t.deps, { merchantId: waiting.id, mode: 'test' })).key;
    const cqris = (key: string) =>
      t.app.inject({ url: '/api/payment-gateway/cqris?amount=10000', headers: { 'x-api-key': key } });
    await addMerchantUser(t.deps, [waiting.id]);
    const shop = new ConsoleClient(t.app);
    await shop.logIn('shop@example.test');
    expect((await shop.post(`/dashboard/approvals/${waiting.id}/reject`, {})).statusCode).toBe(404);
    expect((await cqris(live)).json().error.code).toBe('live_not_approved');

    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    // Without its token the form is refused, and nothing changes.
    const forged = await t.app.inject({
      method: 'POST',
      url: `/dashboard/approvals/${waiting.id}/reject`,
      headers: { cookie: ops.jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(forged.statusCode).toBe(403);
    expect((await cqris(live)).json().error.code).toBe('live_not_approved');

    const rejected = await ops.post(`/dashboard/approvals/${waiting.id}/reject`, {}, '/dashboard/approvals');
    expect(rejected.statusCode).toBe(303);
    const queue = (await ops.get('/dashboard/approvals')).body;
    expect(noticeOf(queue)).toBe(
      'Rejected Toko Tolak: its live keys answer 403 live_rejected. "Ask again" below puts it back in the queue.',
    );
    expect(queue).toContain('Waiting for approval (0)');
    expect(queue).toContain('Rejected (1)');
    expect(queue).toContain('by ops@example.test');
    expect(queue).toContain(`action="/dashboard/approvals/${waiting.id}/ask-again"`);
    expect(queue).toContain('Approvals (0)');

    const refused = await cqris(live);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({
      code: 'live_rejected',
      message: expect.stringMatching(/rejected this merchant's live keys; test keys still work/),
    });
    expect((await cqris(test)).statusCode).toBe(200);
    // The merchant's own pages say "rejected" where they said "waiting for approval".
    for (const url of [
      '/dashboard/merchants',
      `/dashboard/merchants/${waiting.id}`,
      '/dashboard/keys',
      '/dashboard/links',
    ]) {
      const body = (await shop.get(url)).body;
      expect(body, url).toContain('<span class="badge failed">rejected</span>');
      expect(body, url).not.toMatch(/waiting for approval|awaiting approval/);
    }
    expect((await shop.get(`/dashboard/merchants/${waiting.id}`)).body).toContain('An operator rejected its live keys');
    expect((await shop.get(`/dashboard/links/${waiting.id}`)).body).toContain(
      'An operator rejected this merchant&#39;s live payments',
    );
    // A second Reject changes nothing (no second audit entry below); an approved merchant is not rejected, and the page says so.
    await ops.post(`/dashboard/approvals/${waiting.id}/reject`, {}, '/dashboard/approvals');
    await ops.post(`/dashboard/approvals/${t.merchant.id}/reject`, {}, '/dashboard/approvals');
    expect((await ops.get('/dashboard/approvals')).body).toContain(
      'Test Merchant does not wait for approval (it was approved meanwhile), so nothing was rejected.',
    );
    expect((await cqris(t.liveKey)).statusCode).toBe(200);

    expect((await shop.post(`/dashboard/approvals/${waiting.id}/ask-again`, {})).statusCode).toBe(404);
    const again = await ops.post(`/dashboard/approvals/${waiting.id}/ask-again`, {}, '/dashboard/approvals');
    expect(again.statusCode).toBe(303);
    const back = (await ops.get('/dashboard/approvals')).body;
    expect(noticeOf(back)).toBe('Toko Tolak is back in the queue, waiting for approval.');
    expect(back).toContain('Waiting for approval (1)');
    expect(back).not.toContain('Rejected (');
    expect((await cqris(live)).json().error.code).toBe('live_not_approved');
    expect((await shop.get('/dashboard/keys')).body).toContain('waiting for approval');

    // Rejected again, then approved straight from the rejected list: its live keys work.
    await ops.post(`/dashboard/approvals/${waiting.id}/reject`, {}, '/dashboard/approvals');
    await ops.post(`/dashboard/approvals/${waiting.id}`, {}, '/dashboard/approvals');
    expect((await cqris(live)).statusCode).toBe(200);
    const row = await t.deps.db
      .selectFrom('merchants')
      .selectAll()
      .where('id', '=', waiting.id)
      .executeTakeFirstOrThrow();
    expect([row.live_rejected_at, row.live_rejected_by]).toEqual([null, null]);

    // Written in one millisecond, perhaps: compared as a set of entries, not an order.
    const audit = await t.deps.db
      .selectFrom('audit_log')
      .select(['action', 'actor'])
      .where('subject_id', '=', waiting.id)
      .where('action', 'like', '%_live')
      .execute();
    expect(audit.map((a) => a.action).sort()).toEqual([
      'merchant.approve_live',
      'merchant.ask_again_live',
      'merchant.reject_live',
      'merchant.reject_live',
    ]);
    expect(new Set(audit.map((a) => a.actor))).toEqual(new Set(['user:ops@example.test']));
  });

  it('a merchant user sees its use of the daily quota on the overview', async () => {
    t = await createTestApp();
    await setDailyQuota(t.deps, t.merchant.id, 100, TEST_ACTOR);
    await t.app.inject({ url: '/api/payment-gateway/cqris?amount=10000', headers: { 'x-api-key': t.testKey } });
    await addMerchantUser(t.deps, [t.merchant.id]);
    const shop = new ConsoleClient(t.app);
    await shop.logIn('shop@example.test');
    const page = await shop.get('/dashboard');
    expect(page.body).toContain('Creates today (WIB)');
    expect(page.body).toContain('1 of 100');
  });

  it("with LIVE_KEYS=approval a waiting merchant's live key is refused and works once approved; its test key works at once", async () => {
    t = await createTestApp({ LIVE_KEYS: 'approval' });
    await addOperator(t.deps);
    const waiting = await createMerchant(t.deps, {
      name: 'Toko Baru',
      qris: vectors.vectors[1]!.static,
      liveApproved: false,
    });
    const live = (await createApiKey(t.deps, { merchantId: waiting.id, mode: 'live' })).key;
    const test = (await createApiKey(t.deps, { merchantId: waiting.id, mode: 'test' })).key;
    const cqris = (key: string) =>
      t.app.inject({ url: '/api/payment-gateway/cqris?amount=10000', headers: { 'x-api-key': key } });
    const refused = await cqris(live);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('live_not_approved');
    expect((await cqris(test)).statusCode).toBe(200);
    // The operator's own merchants were approved when made.
    expect((await cqris(t.liveKey)).statusCode).toBe(200);
    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    await ops.post(`/dashboard/approvals/${waiting.id}`, {});
    expect((await cqris(live)).statusCode).toBe(200);
  });

  // issue 23, finding 7: without a cap one sign-up multiplied its quota and mail by adding merchants.
  it('a self-service user adds at most MERCHANTS_PER_USER merchants, even all at once; the portal says why', async () => {
    t = await createTestApp({ SIGNUP: 'invite', MERCHANTS_PER_USER: '2' });
    await addMerchantUser(t.deps, [t.merchant.id]);
    const shop = new ConsoleClient(t.app);
    await shop.logIn('shop@example.test');
    const token = csrfOf((await shop.get('/dashboard/merchants/new')).body);
    // Four saves at once, one place left (the operator's merchant it was invited to counts).
    const saves = await Promise.all(
      [1, 2, 3, 4].map((i) =>
        shop.post('/dashboard/merchants', {
          _csrf: token,
          name: `Cabang ${i}`,
          qris: staticQrisWithNmid(`ID102990000010${i}`),
        }),
      ),
    );
    expect(saves.map((r) => r.statusCode).sort()).toEqual([303, 403, 403, 403]);
    const refused = saves.find((r) => r.statusCode === 403)!;
    expect(refused.body).toContain('You already have 2 merchants, as many as one account may have on this gateway.');
    const mine = await t.deps.db.selectFrom('user_merchants').select('merchant_id').execute();
    expect(mine).toHaveLength(2);
    expect(await t.deps.db.selectFrom('merchants').select('id').execute()).toHaveLength(2);
    // The form itself says so, and so does its preview.
    const form = await shop.get('/dashboard/merchants/new');
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('You already have 2 merchants');
    expect(form.body).not.toContain('name="qris"');
    const preview = await shop.post(
      '/dashboard/merchants/preview',
      { name: 'Cabang 5', qris: vectors.vectors[1]!.static },
      '/dashboard/merchants',
    );
    expect(preview.statusCode).toBe(403);
    // Operators are not limited.
    await addOperator(t.deps);
    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    for (const i of [6, 7, 8])
      expect(
        (await ops.post('/dashboard/merchants', { name: `Pusat ${i}`, qris: staticQrisWithNmid(`ID102990000010${i}`) }))
          .statusCode,
      ).toBe(303);
  });

  it('MERCHANTS_PER_USER is a whole number, 3 unless set', () => {
    expect(loadConfig({}).merchantsPerUser).toBe(3);
    expect(loadConfig({ MERCHANTS_PER_USER: '0' }).merchantsPerUser).toBe(0);
    expect(() => loadConfig({ MERCHANTS_PER_USER: 'lots' })).toThrow(/MERCHANTS_PER_USER/);
  });
});

// issue 26, item 10: the same static QRIS (one NMID) could be saved as any number of merchants.
describe('a duplicate NMID', () => {
  let t: TestApp;
  afterEach(async () => t?.close());
  const warung = vectors.vectors[0]!.static; // t.merchant's code, NMID ID1020000000001

  it('createMerchant refuses a second merchant with an NMID (409 duplicate_nmid) unless allowed; a self-service add never is', async () => {
    t = await createTestApp();
    const refused = await createMerchant(t.deps, { name: 'Lagi', qris: warung }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toMatchObject({
      code: 'duplicate_nmid',
      param: 'qris',
      message: `a merchant with NMID ID1020000000001 is already saved on this gateway: Test Merchant (${t.merchant.id})`,
    });
    expect(statusFor('duplicate_nmid')).toBe(409);
    const shop = await addMerchantUser(
      t.deps,
      [(await createMerchant(t.deps, { name: 'Kopi', qris: vectors.vectors[2]!.static })).id],
      'kopi@example.test',
    );
    const selfService = await createMerchant(t.deps, {
      name: 'Punyaku',
      qris: warung,
      memberUserId: shop.id,
      allowDuplicateNmid: true,
    }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(selfService).toMatchObject({ code: 'duplicate_nmid' });
    const saved = await createMerchant(t.deps, {
      name: 'Cabang',
      qris: warung,
      allowDuplicateNmid: true,
      actor: TEST_ACTOR,
    });
    expect(saved.nmid).toBe('ID1020000000001');
    const entry = await t.deps.db
      .selectFrom('audit_log')
      .selectAll()
      .where('subject_id', '=', saved.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(entry.details!)).toMatchObject({ duplicate_nmid_of: [t.merchant.id] });
  });

  it('two adds of one NMID at once: exactly one is saved', async () => {
    t = await createTestApp();
    const code = staticQrisWithNmid('ID1029900000201');
    const results = await Promise.allSettled(
      [1, 2, 3, 4].map((i) => createMerchant(t.deps, { name: `Sama ${i}`, qris: code })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'duplicate_nmid' });
    expect(
      await t.deps.db.selectFrom('merchants').select('id').where('nmid', '=', 'ID1029900000201').execute(),
    ).toHaveLength(1);
  });

  it('the console\'s preview warns an operator, naming the merchant, and Save needs "Save anyway"; in Indonesian too', async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    const preview = await ops.post(
      '/dashboard/merchants/preview',
      { name: 'Cabang', qris: warung },
      '/dashboard/merchants/new',
    );
    expect(preview.statusCode).toBe(200);
    expect(preview.body).toContain(
      'A merchant with this QRIS (NMID ID1020000000001) is already saved on this gateway.',
    );
    expect(preview.body).toContain(`It is <a href="/dashboard/merchants/${t.merchant.id}">Test Merchant</a>.`);
    expect(preview.body).toContain('<label for="allow-duplicate-nmid" class="inline">Save anyway</label>');

    const plain = await ops.post('/dashboard/merchants', { name: 'Cabang', qris: warung }, '/dashboard/merchants/new');
    expect(plain.statusCode).toBe(409);
    expect(plain.body).toContain('is already saved on this gateway.');
    expect(plain.body).toContain('name="allowDuplicateNmid"');
    expect(await t.deps.db.selectFrom('merchants').select('id').where('name', '=', 'Cabang').execute()).toHaveLength(0);

    const anyway = await ops.post(
      '/dashboard/merchants',
      { name: 'Cabang', qris: warung, allowDuplicateNmid: '1' },
      '/dashboard/merchants/new',
    );
    expect(anyway.statusCode).toBe(303);
    const cabang = await t.deps.db
      .selectFrom('merchants')
      .selectAll()
      .where('name', '=', 'Cabang')
      .executeTakeFirstOrThrow();
    const entry = await t.deps.db
      .selectFrom('audit_log')
      .selectAll()
      .where('subject_id', '=', cabang.id)
      .executeTakeFirstOrThrow();
    expect([entry.actor, entry.action]).toEqual(['user:ops@example.test', 'merchant.add']);
    expect(JSON.parse(entry.details!)).toMatchObject({ nmid: 'ID1020000000001', duplicate_nmid_of: [t.merchant.id] });

    await ops.get('/dashboard/lang/id?back=%2Fdashboard');
    const id = await ops.post(
      '/dashboard/merchants/preview',
      { name: 'Cabang Tiga', qris: warung },
      '/dashboard/merchants/new',
    );
    expect(id.body).toContain('Merchant dengan QRIS ini (NMID ID1020000000001) sudah tersimpan di gateway ini.');
    expect(id.body).toContain('>Tetap simpan</label>');
  });

  it('a self-service user is warned without the other merchant named, gets no Save, and cannot save anyway', async () => {
    t = await createTestApp({ SIGNUP: 'invite' });
    const kopi = await createMerchant(t.deps, { name: 'Kopi Saya', qris: vectors.vectors[2]!.static });
    await addMerchantUser(t.deps, [kopi.id], 'shop@example.test');
    const shop = new ConsoleClient(t.app);
    await shop.logIn('shop@example.test');
    const preview = await shop.post(
      '/dashboard/merchants/preview',
      { name: 'Punyaku', qris: warung },
      '/dashboard/merchants/new',
    );
    expect(preview.statusCode).toBe(200);
    expect(preview.body).toContain(
      'A merchant with this QRIS (NMID ID1020000000001) is already saved on this gateway.',
    );
    expect(preview.body).toContain(
      'It cannot be added a second time. If this QRIS is yours, ask the operator of this gateway.',
    );
    expect(preview.body).not.toContain('name="allowDuplicateNmid"');
    expect(preview.body).not.toContain('action="/dashboard/merchants"');
    for (const hidden of [t.merchant.id, 'Test Merchant']) expect(preview.body).not.toContain(hidden);

    const forced = await shop.post(
      '/dashboard/merchants',
      { name: 'Punyaku', qris: warung, allowDuplicateNmid: '1' },
      '/dashboard/merchants/new',
    );
    expect(forced.statusCode).toBe(409);
    for (const hidden of [t.merchant.id, 'Test Merchant']) expect(forced.body).not.toContain(hidden);
    expect(await t.deps.db.selectFrom('merchants').select('id').where('name', '=', 'Punyaku').execute()).toHaveLength(
      0,
    );
    // Its own merchant's code: that one it may see, so it is named.
    const own = await shop.post(
      '/dashboard/merchants/preview',
      { name: 'Kopi Lagi', qris: vectors.vectors[2]!.static },
      '/dashboard/merchants/new',
    );
    expect(own.body).toContain(`It is <a href="/dashboard/merchants/${kopi.id}">Kopi Saya</a>.`);
  });
});
