// Issue 37, section 1: the demo merchant's counter sells in the sandbox, and a merchant's sells live only
// once it has an enabled live payment source (and its live payments are open). Through the keypad's own
// form, on a real database, with the mode shown on the keypad.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWebhookSource } from '../../../src/payment-sources/webhook/setup.js';
import { createMerchant } from '../../../src/services/merchants/create-merchant.js';
import { demoStaticQris } from '../../../src/domain/demo-qris.js';
import { setSourceEnabled } from '../../../src/services/sources/set-source-enabled.js';
import { addUser } from '../../../src/services/users/add-user.js';
import { ConsoleClient, PASSWORD, TEST_ACTOR } from '../../helpers/console.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';

describe('the mode a point of sale sells in', () => {
  let t: TestApp;
  let demoId: string;

  beforeAll(async () => {
    t = await createTestApp({ CONSOLE: 'true', LIVE_KEYS: 'auto' });
    // The demo merchant as a first start makes it (ensureDemoMerchant), known by its built-in QRIS.
    demoId = (
      await createMerchant(t.deps, { name: 'Demo Sandbox Merchant', qris: demoStaticQris(), allowDuplicateNmid: true })
    ).id;
    await addUser(
      t.deps,
      { email: 'kasir-demo@example.test', password: PASSWORD, role: 'cashier', merchantIds: [demoId] },
      TEST_ACTOR,
    );
    await addUser(
      t.deps,
      { email: 'kasir-toko@example.test', password: PASSWORD, role: 'cashier', merchantIds: [t.merchant.id] },
      TEST_ACTOR,
    );
  });
  afterAll(async () => t?.close());

  async function sell(email: string, merchantId: string): Promise<{ mode: string; keypad: string }> {
    const c = new ConsoleClient(t.app);
    expect((await c.logIn(email)).statusCode).toBe(303);
    const keypad = (await c.get('/dashboard/pos')).body;
    const key = `mode-key-${Math.random().toString(36).slice(2)}-0000`;
    const res = await c.post(
      '/dashboard/pos',
      { merchant: merchantId, amount: '15000', note: '', key },
      '/dashboard/pos',
    );
    expect(res.statusCode, res.body).toBe(303);
    const trxid = /^\/dashboard\/pos\/(trx_\w+)$/.exec(String(res.headers.location))![1]!;
    const tx = await t.deps.db
      .selectFrom('transactions')
      .select('mode')
      .where('id', '=', trxid)
      .executeTakeFirstOrThrow();
    return { mode: tx.mode, keypad };
  }

  it('the demo merchant always sells in the sandbox, and says why', async () => {
    // Even with a live source of its own: its QRIS is made up, so no wallet could pay a live sale.
    await addWebhookSource(t.deps, { merchantId: demoId, mode: 'live' });
    const sale = await sell('kasir-demo@example.test', demoId);
    expect(sale.mode).toBe('test');
    expect(sale.keypad).toContain('Sandbox');
    expect(sale.keypad).toContain('This is the demo merchant');
  });

  it('a merchant sells in the sandbox until it has an enabled live source, then live', async () => {
    const none = await sell('kasir-toko@example.test', t.merchant.id);
    expect(none.mode).toBe('test');
    expect(none.keypad).toContain('has no enabled live payment source');

    // A test source is no way to learn a real payment.
    await addWebhookSource(t.deps, { merchantId: t.merchant.id, mode: 'test' });
    expect((await sell('kasir-toko@example.test', t.merchant.id)).mode).toBe('test');

    const live = await addWebhookSource(t.deps, { merchantId: t.merchant.id, mode: 'live' });
    const sold = await sell('kasir-toko@example.test', t.merchant.id);
    expect(sold.mode).toBe('live');
    expect(sold.keypad).not.toContain('Sandbox');

    // Turned off, it can pay nothing: the sandbox again.
    await setSourceEnabled(t.deps, { id: live.id, enabled: false, actor: TEST_ACTOR });
    expect((await sell('kasir-toko@example.test', t.merchant.id)).mode).toBe('test');
  });
});
