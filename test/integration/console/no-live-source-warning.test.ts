// Issue 37, section 6: a merchant with no enabled live payment source has nothing to mark a live sale or a
// live key's transaction paid. The keys page, a live pending transaction's page and the point of sale say
// so plainly, with the link to add one; once an enabled live source exists (or for a test transaction)
// they say nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWebhookSource } from '../../../src/payment-sources/webhook/setup.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { setSourceEnabled } from '../../../src/services/sources/set-source-enabled.js';
import { addUser } from '../../../src/services/users/add-user.js';
import { addMerchantUser, ConsoleClient, PASSWORD, TEST_ACTOR } from '../../helpers/console.js';
import { createInput, createTestApp, type TestApp } from '../../helpers/context.js';

const WARNING = 'No payment source will mark a live payment of';
const LINK = '<a href="/dashboard/sources">Add a payment source</a>';

describe('the warning that no source will mark a live sale paid', () => {
  let t: TestApp;
  let owner: ConsoleClient;
  let cashier: ConsoleClient;

  beforeAll(async () => {
    t = await createTestApp({ CONSOLE: 'true', LIVE_KEYS: 'auto' });
    await addMerchantUser(t.deps, [t.merchant.id], 'owner@example.test');
    await addUser(
      t.deps,
      { email: 'kasir@example.test', password: PASSWORD, role: 'cashier', merchantIds: [t.merchant.id] },
      TEST_ACTOR,
    );
    owner = new ConsoleClient(t.app);
    expect((await owner.logIn('owner@example.test')).statusCode).toBe(303);
    cashier = new ConsoleClient(t.app);
    expect((await cashier.logIn('kasir@example.test')).statusCode).toBe(303);
  });
  afterAll(async () => t?.close());

  const warnings = (page: string) => page.split(WARNING).length - 1;

  it('says so on every page until an enabled live source exists, and then not', async () => {
    const live = await createTransaction(t.deps, createInput(t.merchant.id, 25_000, { mode: 'live' }));
    const test = await createTransaction(t.deps, createInput(t.merchant.id, 26_000));

    // The keys page: the seeded merchant has a live key.
    const keys = (await owner.get('/dashboard/keys')).body;
    expect(warnings(keys)).toBe(1);
    expect(keys).toContain('Test Merchant');
    expect(keys).toContain(LINK);

    // A live pending transaction's page, not a test one's.
    const liveTx = (await owner.get(`/dashboard/transactions/${live.transaction.id}`)).body;
    expect(warnings(liveTx)).toBe(1);
    expect(liveTx).toContain(LINK);
    expect(warnings((await owner.get(`/dashboard/transactions/${test.transaction.id}`)).body)).toBe(0);

    // The point of sale sells in the sandbox and says why, with the link for the owner only (a cashier
    // may not open the sources page).
    const pos = (await owner.get('/dashboard/pos')).body;
    expect(pos).toContain('no payment source would mark a live sale paid');
    expect(pos).toContain(LINK);
    const kasir = (await cashier.get('/dashboard/pos')).body;
    expect(kasir).toContain('no payment source would mark a live sale paid');
    expect(kasir).not.toContain(LINK);

    // A test source marks no live payment paid.
    const testSource = await addWebhookSource(t.deps, { merchantId: t.merchant.id, mode: 'test' });
    expect(warnings((await owner.get('/dashboard/keys')).body)).toBe(1);

    const source = await addWebhookSource(t.deps, { merchantId: t.merchant.id, mode: 'live' });
    expect(warnings((await owner.get('/dashboard/keys')).body)).toBe(0);
    expect(warnings((await owner.get(`/dashboard/transactions/${live.transaction.id}`)).body)).toBe(0);
    expect((await owner.get('/dashboard/pos')).body).not.toContain(LINK);

    // Turned off, it marks nothing paid again.
    await setSourceEnabled(t.deps, { id: source.id, enabled: false, actor: TEST_ACTOR });
    expect(warnings((await owner.get('/dashboard/keys')).body)).toBe(1);
    expect(warnings((await owner.get(`/dashboard/transactions/${live.transaction.id}`)).body)).toBe(1);
    await setSourceEnabled(t.deps, { id: testSource.id, enabled: false, actor: TEST_ACTOR });
  });

  it('warns on the page that shows a live key just made, and escapes the merchant name', async () => {
    await t.deps.db
      .updateTable('merchants')
      .set({ name: 'Toko <b>Satu</b>' })
      .where('id', '=', t.merchant.id)
      .execute();
    const res = await owner.post('/dashboard/keys', { merchant: t.merchant.id, mode: 'live' }, '/dashboard/keys');
    expect(res.statusCode).toBe(201);
    expect(warnings(res.body)).toBe(1);
    expect(res.body).toContain('Toko &lt;b&gt;Satu&lt;/b&gt;');
    expect(res.body).not.toContain('<b>Satu</b>');
  });
});
