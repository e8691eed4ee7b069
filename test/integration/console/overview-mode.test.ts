// Which mode the console's overview shows when none is asked for (issue 26, item 7): the one with data in
// the chart's window, live first; a mode the viewer asks for always wins.
import { describe, expect, it } from 'vitest';
import type { Viewer } from '../../../src/domain/viewer.js';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { overviewMode } from '../../../src/services/overview/overview-mode.js';
import { CHART_DAYS } from '../../../src/domain/overview-chart.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { seedMerchant, useSeededContext } from '../../helpers/context.js';

const operator: Viewer = {
  userId: 'usr_ops',
  email: 'ops@example.test',
  role: 'operator',
  merchantIds: [],
  sessionKey: 'k',
  actor: { kind: 'user' as const, email: 'ops@example.test' },
};
const userOf = (merchantIds: string[]): Viewer => ({
  userId: 'usr_shop',
  email: 'shop@example.test',
  role: 'merchant',
  merchantIds,
  sessionKey: 'k',
  actor: { kind: 'user' as const, email: 'shop@example.test' },
});
const DAY_MS = 86_400_000;

describe('the overview mode', () => {
  const s = useSeededContext();

  async function sandboxPayments(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const { transaction } = await createTransaction(s.ctx.deps, s.input(10_000 + i * 1_000));
      await simulatePayment(s.ctx.deps, { merchantId: s.seeded.merchant.id, mode: 'test' }, transaction.id);
    }
  }

  it('is live when neither mode has anything', async () => {
    await s.setup();
    await expect(overviewMode(s.ctx.deps, operator, undefined)).resolves.toEqual({ mode: 'live', chosen: 'default' });
    // A merchant user with no merchant yet has nothing either.
    await expect(overviewMode(s.ctx.deps, userOf([]), undefined)).resolves.toEqual({ mode: 'live', chosen: 'default' });
  });

  it('is test when only the sandbox has payments, for an operator and for the merchant user', async () => {
    await s.setup();
    await sandboxPayments(3);
    await expect(overviewMode(s.ctx.deps, operator, undefined)).resolves.toEqual({ mode: 'test', chosen: 'default' });
    await expect(overviewMode(s.ctx.deps, userOf([s.seeded.merchant.id]), undefined)).resolves.toEqual({
      mode: 'test',
      chosen: 'default',
    });
  });

  it('is test for a test transaction nobody has paid yet', async () => {
    await s.setup();
    await createTransaction(s.ctx.deps, s.input(12_000));
    await expect(overviewMode(s.ctx.deps, operator, undefined)).resolves.toMatchObject({ mode: 'test' });
  });

  it('is live when live has a transaction, even beside sandbox payments', async () => {
    await s.setup();
    await sandboxPayments(2);
    await createTransaction(s.ctx.deps, s.input(30_000, { mode: 'live' }));
    await expect(overviewMode(s.ctx.deps, operator, undefined)).resolves.toEqual({ mode: 'live', chosen: 'default' });
  });

  it('is live when live has only a payment nobody claimed', async () => {
    await s.setup();
    await sandboxPayments(1);
    const now = s.ctx.clock.ms;
    await recordPayment(s.ctx.deps, {
      merchantId: s.seeded.merchant.id,
      mode: 'live',
      source: 'manual',
      sourcePaymentId: 'stray',
      amount: 12_345,
      paidAt: now,
    });
    await expect(overviewMode(s.ctx.deps, operator, undefined)).resolves.toMatchObject({ mode: 'live' });
  });

  it('counts only the chart window: live data older than it does not keep the overview on live', async () => {
    await s.setup();
    const now = s.ctx.clock.ms;
    s.ctx.clock.ms = now - (CHART_DAYS + 1) * DAY_MS;
    await createTransaction(s.ctx.deps, s.input(30_000, { mode: 'live' }));
    s.ctx.clock.ms = now;
    await sandboxPayments(1);
    await expect(overviewMode(s.ctx.deps, operator, undefined)).resolves.toMatchObject({ mode: 'test' });
  });

  it("looks only at the viewer's own merchants", async () => {
    await s.setup();
    const other = await seedMerchant(s.ctx.deps, 1, 'Other Merchant');
    await createTransaction(s.ctx.deps, s.input(30_000, { merchantId: other.merchant.id, mode: 'live' }));
    await sandboxPayments(1);
    // The operator sees the other merchant's live sale; the first merchant's user sees only its sandbox.
    await expect(overviewMode(s.ctx.deps, operator, undefined)).resolves.toMatchObject({ mode: 'live' });
    await expect(overviewMode(s.ctx.deps, userOf([s.seeded.merchant.id]), undefined)).resolves.toMatchObject({
      mode: 'test',
    });
  });

  it('shows the mode asked for, whatever the data', async () => {
    await s.setup();
    await sandboxPayments(1);
    await expect(overviewMode(s.ctx.deps, operator, 'live')).resolves.toEqual({ mode: 'live', chosen: 'asked' });
    await createTransaction(s.ctx.deps, s.input(30_000, { mode: 'live' }));
    await expect(overviewMode(s.ctx.deps, operator, 'test')).resolves.toEqual({ mode: 'test', chosen: 'asked' });
    // Anything else is not a mode: the data decides.
    await expect(overviewMode(s.ctx.deps, operator, 'sandbox')).resolves.toEqual({ mode: 'live', chosen: 'default' });
  });
});
