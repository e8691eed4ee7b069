import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, seedMerchant, type TestApp } from '../../helpers/context.js';
import { addMerchantUser, addOperator, ConsoleClient } from '../../helpers/console.js';
import { hashApiKey } from '../../../src/domain/api-key.js';
import { flushKeyUses } from '../../../src/services/merchants/key-uses.js';
import { api } from '../../helpers/console-forms.js';

const alertOf = (body: string) => /<p class="notice error" role="alert">([^<]*)<\/p>/.exec(body)?.[1];
const statusOf = (body: string) => /<p class="notice success" role="status">([^<]*)/.exec(body)?.[1];
const keysIn = (body: string) => body.match(/sk_(test|live)_[A-Za-z0-9]{20,}/g) ?? [];

describe('console API keys', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  async function logIn(email: string): Promise<ConsoleClient> {
    const c = new ConsoleClient(t.app);
    expect((await c.logIn(email)).statusCode).toBe(303);
    return c;
  }

  // The logged-out page: route-common.test.ts.
  it('acts on nothing a logged-out visitor posts', async () => {
    t = await createTestApp();
    const res = await t.app.inject({
      method: 'POST',
      url: '/dashboard/keys',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `merchant=${t.merchant.id}&mode=test`,
    });
    expect(res.statusCode).toBe(303);
    expect(await t.deps.db.selectFrom('api_keys').select('id').execute()).toHaveLength(2);
  });

  it('lists the keys with prefix, mode, created, last used and state, and a form with Mode and the merchants', async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    const c = await logIn('ops@example.test');
    const one = await c.get('/dashboard/keys');
    expect(one.statusCode).toBe(200);
    expect(one.body).toContain('<h1>API keys</h1>');
    expect(one.body).toContain('<label for="key-mode">Mode</label>');
    expect(one.body).toContain('<option value="test">test</option><option value="live">live</option>');
    expect(one.body).toMatch(/<button type="submit">Create key<\/button>/);
    // One merchant: no merchant select, the merchant travels in a hidden field.
    expect(one.body).not.toContain('<label for="key-merchant">');
    expect(one.body).toContain(`<input type="hidden" name="merchant" value="${t.merchant.id}">`);
    for (const th of ['Key', 'Mode', 'Created', 'Last used', 'State'])
      expect(one.body).toContain(`<th${th === 'Created' ? ' class="hide-narrow"' : ''}>${th}</th>`);
    const stored = await t.deps.db.selectFrom('api_keys').select('key_prefix').execute();
    for (const k of stored) expect(one.body).toContain(`<td class="mono key" data-label="Key">${k.key_prefix}</td>`);
    expect(one.body.match(/<td data-label="Last used">never<\/td>/g)).toHaveLength(2);
    expect(keysIn(one.body)).toEqual([]);

    await seedMerchant(t.deps, 1, 'Second Shop');
    const two = await c.get('/dashboard/keys');
    expect(two.body).toContain('<label for="key-merchant">Merchant</label>');
    expect(two.body).toContain('Second Shop');
  });

  it('shows a new key once, in the 201 answer only, stores only its hash, and the key works on the API', async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    const c = await logIn('ops@example.test');
    const res = await c.post('/dashboard/keys', { merchant: t.merchant.id, mode: 'test' }, '/dashboard/keys');
    expect(res.statusCode).toBe(201);
    const shown = keysIn(res.body);
    expect(shown).toHaveLength(1);
    const key = shown[0]!;
    expect(key).toMatch(/^sk_test_/);
    expect(res.body).toContain(`<p class="secret" id="new-key">${key}</p>`);
    expect(res.body).toContain('<button type="button" data-copy="new-key"');
    expect(alertOf(res.body)).toMatch(/only time the key is shown/);
    expect(statusOf(res.body)).toMatch(/^Key sk_test_\w+… created for Test Merchant \(test\)\.$/);
    expect(res.headers['cache-control']).toBe('no-store');

    const row = await t.deps.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_hash', '=', hashApiKey(key))
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(key);
    expect(keysIn((await c.get('/dashboard/keys')).body)).toEqual([]);
    const audit = await t.deps.db.selectFrom('audit_log').selectAll().where('subject_id', '=', row.id).execute();
    expect(audit.map((a) => [a.actor, a.action])).toEqual([['user:ops@example.test', 'api_key.create']]);
    expect(audit[0]!.details).not.toContain(key);

    expect((await api(t, key)).statusCode).toBe(201);

    const live = await c.post('/dashboard/keys', { merchant: t.merchant.id, mode: 'live' }, '/dashboard/keys');
    expect(keysIn(live.body)[0]).toMatch(/^sk_live_/);
  });

  it('refuses a bad mode with a notice, and an unknown or foreign merchant with a 404', async () => {
    t = await createTestApp();
    const other = await seedMerchant(t.deps, 1, 'Other Shop');
    await addMerchantUser(t.deps, [t.merchant.id]);
    const c = await logIn('shop@example.test');
    const bad = await c.post('/dashboard/keys', { merchant: t.merchant.id, mode: 'prod' }, '/dashboard/keys');
    expect(bad.statusCode).toBe(303);
    expect(bad.headers.location).toBe('/dashboard/keys');
    expect(alertOf((await c.get(bad.headers.location as string)).body)).toBe('Choose the mode: test or live.');
    for (const merchant of [other.merchant.id, 'mch_nosuchmerchant', '']) {
      const res = await c.post('/dashboard/keys', { merchant, mode: 'test' }, '/dashboard/keys');
      expect(res.statusCode, merchant).toBe(404);
      expect(keysIn(res.body)).toEqual([]);
    }
    expect(await t.deps.db.selectFrom('api_keys').select('id').execute()).toHaveLength(4);
    // Its own merchant: allowed.
    expect(
      (await c.post('/dashboard/keys', { merchant: t.merchant.id, mode: 'test' }, '/dashboard/keys')).statusCode,
    ).toBe(201);
  });

  it("shows a merchant user only its merchants' keys, and another merchant's key is a 404 to revoke", async () => {
    t = await createTestApp();
    const other = await seedMerchant(t.deps, 1, 'Other Shop');
    await addMerchantUser(t.deps, [t.merchant.id]);
    const c = await logIn('shop@example.test');
    const page = await c.get('/dashboard/keys');
    const own = await t.deps.db.selectFrom('api_keys').selectAll().where('merchant_id', '=', t.merchant.id).execute();
    const foreign = await t.deps.db
      .selectFrom('api_keys')
      .selectAll()
      .where('merchant_id', '=', other.merchant.id)
      .execute();
    for (const k of own) expect(page.body).toContain(k.key_prefix);
    for (const k of foreign) {
      expect(page.body).not.toContain(k.key_prefix);
      expect(page.body).not.toContain(k.id);
      const res = await c.post(`/dashboard/keys/${k.id}/revoke`, {}, '/dashboard/keys');
      expect(res.statusCode).toBe(404);
    }
    expect((await c.post('/dashboard/keys/key_nosuchkey/revoke', {}, '/dashboard/keys')).statusCode).toBe(404);
    expect(await t.deps.db.selectFrom('api_keys').select('id').where('revoked_at', 'is not', null).execute()).toEqual(
      [],
    );
    expect((await api(t, other.testKey)).statusCode).toBe(201);
  });

  it('revoke (confirmed, CSRF-checked) stops the key on the API at once, even one the API had cached', async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    const c = await logIn('ops@example.test');
    expect((await api(t, t.testKey)).statusCode).toBe(201);
    const row = await t.deps.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_hash', '=', hashApiKey(t.testKey))
      .executeTakeFirstOrThrow();
    const page = await c.get('/dashboard/keys');
    expect(page.body).toContain(
      `action="/dashboard/keys/${row.id}/revoke" class="inline" data-confirm="Revoke key ${row.key_prefix}?`,
    );

    const forged = await t.app.inject({
      method: 'POST',
      url: `/dashboard/keys/${row.id}/revoke`,
      headers: { cookie: c.jar.header() },
    });
    expect(forged.statusCode).toBe(403);
    expect((await api(t, t.testKey)).statusCode).toBe(201);

    const res = await c.post(`/dashboard/keys/${row.id}/revoke`, {}, '/dashboard/keys');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/keys');
    const after = await c.get(res.headers.location as string);
    expect(statusOf(after.body)).toBe(`Key ${row.key_prefix} revoked: requests with it are refused.`);
    expect(after.body).toContain('<span class="badge revoked">revoked</span>');
    expect(after.body).not.toContain(`/dashboard/keys/${row.id}/revoke`);
    const refused = await api(t, t.testKey);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
    expect((await api(t, t.liveKey)).statusCode).toBe(201);
    const audit = await t.deps.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('subject_id', '=', row.id)
      .where('action', '=', 'api_key.revoke')
      .execute();
    expect(audit).toEqual([{ actor: 'user:ops@example.test', action: 'api_key.revoke' }]);
  });

  it('"last used" appears after a flush, with no write on the request path, and the last flush runs on close', async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    const c = await logIn('ops@example.test');
    const usedAt = Date.UTC(2025, 0, 15, 3, 4, 5);
    t.clock.ms = usedAt;
    for (let i = 0; i < 3; i++) expect((await api(t, t.testKey)).statusCode).toBe(201);
    const lastUsed = () => t.deps.db.selectFrom('api_keys').select(['key_hash', 'last_used_at']).execute();
    // Used three times, written nowhere yet: the API only noted the key in memory.
    expect((await lastUsed()).every((k) => k.last_used_at === null)).toBe(true);
    expect(t.deps.state.keyUses.size).toBe(1);
    expect(await flushKeyUses(t.deps)).toBe(1);
    expect(await flushKeyUses(t.deps)).toBe(0);
    const rows = await lastUsed();
    expect(rows.find((k) => k.key_hash === hashApiKey(t.testKey))!.last_used_at).toBe(usedAt);
    expect(rows.find((k) => k.key_hash === hashApiKey(t.liveKey))!.last_used_at).toBeNull();
    const page = await c.get('/dashboard/keys');
    expect(page.body).toContain('<td data-label="Last used">15 Jan 2025, 10:04:05 WIB</td>');
    expect(page.body.match(/<td data-label="Last used">never<\/td>/g)).toHaveLength(1);

    // An older time never replaces a newer one (another instance's clock may lag).
    t.clock.ms = usedAt - 60_000;
    await api(t, t.testKey);
    await flushKeyUses(t.deps);
    expect((await lastUsed()).find((k) => k.key_hash === hashApiKey(t.testKey))!.last_used_at).toBe(usedAt);

    t.clock.ms = usedAt + 120_000;
    await api(t, t.liveKey);
    await t.app.close();
    expect((await lastUsed()).find((k) => k.key_hash === hashApiKey(t.liveKey))!.last_used_at).toBe(usedAt + 120_000);
  });

  it('a key of a disabled merchant is noted as used by nobody (refused requests are not uses)', async () => {
    t = await createTestApp();
    await t.deps.db.runInTransaction((trx) =>
      trx.updateTable('merchants').set({ disabled_at: 1 }).where('id', '=', t.merchant.id).execute(),
    );
    expect((await api(t, t.testKey)).statusCode).toBe(403);
    expect((await api(t, 'sk_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')).statusCode).toBe(401);
    expect(t.deps.state.keyUses.size).toBe(0);
  });

  // The typed form (web/forms.ts): a field of the wrong shape is refused before the handler, naming the field.
  it('refuses a form whose mode is sent twice with a page naming the field, and creates nothing', async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    const c = await logIn('ops@example.test');
    const res = await c.post('/dashboard/keys', { merchant: t.merchant.id, mode: ['test', 'live'] }, '/dashboard/keys');
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<h1>This form could not be used</h1>');
    expect(res.body).toContain('The field &quot;mode&quot; holds a value of a kind this page does not take.');
    expect(await t.deps.db.selectFrom('api_keys').select('id').execute()).toHaveLength(2);
  });

  // The way back from that page: to the form's own page when there is one to GET at the POST's path (with its
  // id, if any), else only to the overview; in the viewer's language.
  it("links the refused form's page back to the form it came from, or to the overview when that has no page", async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    const c = await logIn('ops@example.test');
    const overview = '<p><a href="/dashboard">Back to the overview</a></p>';

    const keys = await c.post(
      '/dashboard/keys',
      { merchant: t.merchant.id, mode: ['test', 'live'] },
      '/dashboard/keys',
    );
    expect(keys.statusCode).toBe(400);
    expect(keys.body).toContain(`<p><a href="/dashboard/keys">Back to the form</a></p>\n${overview}`);

    const link = await c.post(
      `/dashboard/links/${t.merchant.id}`,
      { handle: ['a', 'b'] },
      `/dashboard/links/${t.merchant.id}`,
    );
    expect(link.statusCode).toBe(400);
    expect(link.body).toContain(`<p><a href="/dashboard/links/${t.merchant.id}">Back to the form</a></p>`);

    // No page at /dashboard/users/invite: the form is on /dashboard/users, which this page cannot know.
    const invite = await c.post(
      '/dashboard/users/invite',
      { email: ['a@example.test', 'b@example.test'] },
      '/dashboard/users',
    );
    expect(invite.statusCode).toBe(400);
    expect(invite.body).toContain('<h1>This form could not be used</h1>');
    expect(invite.body).not.toContain('Back to the form');
    expect(invite.body).toContain(overview);

    await c.get('/dashboard/lang/id');
    const id = await c.post('/dashboard/keys', { merchant: t.merchant.id, mode: ['test', 'live'] }, '/dashboard/keys');
    expect(id.statusCode).toBe(400);
    expect(id.body).toContain(
      '<p><a href="/dashboard/keys">Kembali ke formulir</a></p>\n<p><a href="/dashboard">Kembali ke ringkasan</a></p>',
    );
  });
});
