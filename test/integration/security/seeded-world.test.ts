import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillParams, startSeededWorld, type SeededWorld } from '../../helpers/seeded-world.js';

// issue 23, the hostile-input suite: the world the isolation matrix and the fuzz test share.
describe('the seeded world', () => {
  let world: SeededWorld;
  let startMs = 0;
  beforeAll(async () => {
    const started = performance.now();
    world = await startSeededWorld();
    startMs = performance.now() - started;
  });
  afterAll(async () => world?.close());

  it('logs every viewer in, with a CSRF token that a form accepts', async () => {
    console.log(`seeded world built in ${startMs.toFixed(0)} ms`);
    for (const name of ['operator', 'userA', 'userB'] as const) {
      const v = world.viewers[name];
      expect((await v.get('/dashboard/account')).statusCode, name).toBe(200);
    }
    expect((await world.viewers.anonymous.get('/dashboard/account')).statusCode).toBe(303);
    // A form post with the token passes the CSRF check (the language cookie is harmless to set).
    const res = await world.viewers.userA.post('/dashboard/keys', {
      merchant: world.merchants.B.ids.merchantId,
      mode: 'test',
    });
    expect(res.statusCode).toBe(404);
    const without = await world.viewers.userA.post('/dashboard/keys', {
      _csrf: '',
      merchant: world.merchants.A.ids.merchantId,
      mode: 'test',
    });
    expect(without.statusCode).toBe(403);
  });

  it("fills route parameters from a merchant's ids, and names what it cannot fill", () => {
    const { ids } = world.merchants.A;
    expect(fillParams('/dashboard/keys/:id/revoke', ids)).toBe(`/dashboard/keys/${ids.keyId}/revoke`);
    expect(fillParams('/dashboard/payments/:id/assign', ids)).toBe(`/dashboard/payments/${ids.paymentId}/assign`);
    expect(fillParams('/pay/:handle/:amount', ids)).toBe(`/pay/${ids.handle}/25000`);
    expect(() => fillParams('/dashboard/widgets/:widgetId', ids)).toThrow(
      /route \/dashboard\/widgets\/:widgetId: no value for its parameter :widgetId/,
    );
    expect(() => fillParams('/dashboard/widgets/:id', ids)).toThrow(/:id after \/widgets/);
    expect(() => fillParams('/snap/*', ids)).toThrow(/wildcard/);
    expect(fillParams('/snap/*', { ...ids, wildcard: 'v1.0/qr/qr-mpm-notify' })).toBe('/snap/v1.0/qr/qr-mpm-notify');
  });

  it('snapshots the seeded rows, equal until something changes', async () => {
    const before = await world.snapshot();
    expect(before.transactions!.length).toBeGreaterThanOrEqual(4);
    await world.viewers.userA.get('/dashboard/transactions');
    expect(await world.snapshot()).toEqual(before);
  });
});
