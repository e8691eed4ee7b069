// Issue 27, section 3: a merchant's owner (and an operator) invites cashiers from the users page. The
// owner invites only to its own merchants (another merchant is a 404), sees and disables only its own
// merchants' cashiers, and an accepted invitation makes a cashier who gets the point of sale and a 404 on
// keys. Real app, real database (both), real forms with their CSRF tokens; no SMTP, so the link is shown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.js';
import { addUser } from '../../../src/services/users/add-user.js';
import { addMerchantUser, addOperator, ConsoleClient, PASSWORD, TEST_ACTOR } from '../../helpers/console.js';
import { createTestApp, seedMerchant, type Seeded, type TestApp } from '../../helpers/context.js';

/** The invitation link a users page shows after an invite (the notice's secret paragraph). */
function shownLink(body: string): string {
  const m = /<p class="secret" id="invite-link">([^<]+)<\/p>/.exec(body);
  if (!m) throw new Error('no invitation link on the page');
  return m[1]!.replace(/&amp;/g, '&');
}

describe('inviting cashiers from the console', () => {
  let t: TestApp;
  let other: Seeded;
  let owner: ConsoleClient;
  let othersCashierId: string;
  let operatorId: string;

  beforeAll(async () => {
    t = await createTestApp({ CONSOLE: 'true', SIGNUP: 'invite' });
    other = await seedMerchant(t.deps, 1, 'Other Shop');
    operatorId = (await addOperator(t.deps)).id;
    await addMerchantUser(t.deps, [t.merchant.id], 'owner@shop.test');
    othersCashierId = (
      await addUser(
        t.deps,
        { email: 'their-cashier@other.test', password: PASSWORD, role: 'cashier', merchantIds: [other.merchant.id] },
        TEST_ACTOR,
      )
    ).id;
    owner = new ConsoleClient(t.app);
    expect((await owner.logIn('owner@shop.test')).statusCode).toBe(303);
  });
  afterAll(async () => t?.close());

  const accept = async (link: string): Promise<ConsoleClient> => {
    const path = link.replace('http://gateway.test', '');
    const c = new ConsoleClient(t.app);
    const res = await c.post(
      '/dashboard/invite',
      { token: new URL(link).searchParams.get('token')!, password: PASSWORD },
      path,
    );
    expect(res.statusCode).toBe(303);
    return c;
  };

  it('an owner invites a cashier of its merchant; accepting makes a cashier who sells and gets 404 on keys', async () => {
    const page = await owner.get('/dashboard/users');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Cashiers</h1>');
    expect(page.body).toContain('Invite a cashier');
    // Its only merchant is named, not chosen; nobody else's cashier or the operator is listed.
    expect(page.body).toContain('A cashier of Test Merchant.');
    expect(page.body).not.toContain('their-cashier@other.test');
    expect(page.body).not.toContain('ops@example.test');
    expect(page.body).not.toContain(other.merchant.id);

    // A role of "merchant" in an owner's form still makes a cashier: an owner makes nothing else.
    const made = await owner.post(
      '/dashboard/users/invite',
      { email: 'Kasir@Shop.test', merchant: t.merchant.id, role: 'merchant' },
      '/dashboard/users',
    );
    expect(made.statusCode).toBe(201);
    expect(made.body).toContain('Cashier invitation made for kasir@shop.test.');
    const link = shownLink(made.body);
    expect(link).toMatch(/^http:\/\/gateway\.test\/dashboard\/invite\?token=/);
    const token = await t.deps.db
      .selectFrom('user_tokens')
      .selectAll()
      .where('email', '=', 'kasir@shop.test')
      .executeTakeFirstOrThrow();
    expect(token.role).toBe('cashier');
    expect(JSON.parse(token.merchant_ids!)).toEqual([t.merchant.id]);
    const audit = await t.deps.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'user.invite')
      .where('subject_id', '=', 'kasir@shop.test')
      .executeTakeFirstOrThrow();
    expect(audit.actor).toContain('owner@shop.test');
    expect(JSON.parse(audit.details!)).toEqual({ merchant_ids: [t.merchant.id], role: 'cashier' });

    const cashier = await accept(link);
    const user = await t.deps.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', 'kasir@shop.test')
      .executeTakeFirstOrThrow();
    expect(user.role).toBe('cashier');
    const members = await t.deps.db
      .selectFrom('user_merchants')
      .select('merchant_id')
      .where('user_id', '=', user.id)
      .execute();
    expect(members.map((m) => m.merchant_id)).toEqual([t.merchant.id]);
    const front = await cashier.get('/dashboard');
    expect(front.headers.location).toBe('/dashboard/pos');
    expect((await cashier.get('/dashboard/pos')).statusCode).toBe(200);
    expect((await cashier.get('/dashboard/keys')).statusCode).toBe(404);
    expect((await cashier.get('/dashboard/users')).statusCode).toBe(404);
    const accepted = await t.deps.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'user.accept_invite')
      .where('subject_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(accepted.details!)).toEqual({ merchant_ids: [t.merchant.id], role: 'cashier' });

    // The owner now sees its cashier, and disabling it ends the cashier's session at once.
    expect((await owner.get('/dashboard/users')).body).toContain('kasir@shop.test');
    const disabled = await owner.post(`/dashboard/users/${user.id}/disable`, {}, '/dashboard/users');
    expect(disabled.statusCode).toBe(303);
    expect(
      (await t.deps.db.selectFrom('users').select('disabled_at').where('id', '=', user.id).executeTakeFirstOrThrow())
        .disabled_at,
    ).not.toBeNull();
    const after = await cashier.get('/dashboard/pos');
    expect(after.statusCode).toBe(303);
    expect(String(after.headers.location)).toMatch(/^\/dashboard\?next=/);
    expect((await owner.post(`/dashboard/users/${user.id}/enable`, {}, '/dashboard/users')).statusCode).toBe(303);
  });

  it('an owner cannot invite to another merchant, nor to none: a 404, and no invitation is made', async () => {
    const theirs = await owner.post(
      '/dashboard/users/invite',
      { email: 'sneaky@shop.test', merchant: other.merchant.id },
      '/dashboard/users',
    );
    expect(theirs.statusCode).toBe(404);
    const unknown = await owner.post(
      '/dashboard/users/invite',
      { email: 'sneaky@shop.test', merchant: 'mch_unknown' },
      '/dashboard/users',
    );
    expect(unknown.statusCode).toBe(404);
    const none = await owner.post(
      '/dashboard/users/invite',
      { email: 'sneaky@shop.test', merchant: '' },
      '/dashboard/users',
    );
    expect(none.statusCode).toBe(404);
    expect(
      await t.deps.db.selectFrom('user_tokens').selectAll().where('email', '=', 'sneaky@shop.test').execute(),
    ).toEqual([]);
  });

  it('an owner cannot disable another merchant’s cashier, the operator or itself: a 404, and nothing changes', async () => {
    const ownerId = (
      await t.deps.db.selectFrom('users').select('id').where('email', '=', 'owner@shop.test').executeTakeFirstOrThrow()
    ).id;
    for (const id of [othersCashierId, operatorId, ownerId, 'usr_unknown']) {
      expect((await owner.post(`/dashboard/users/${id}/disable`, {}, '/dashboard/users')).statusCode, id).toBe(404);
    }
    const disabled = await t.deps.db.selectFrom('users').select('email').where('disabled_at', 'is not', null).execute();
    expect(disabled).toEqual([]);
  });

  it('an operator sees every user and invites a cashier of any merchant, or a merchant user', async () => {
    const ops = new ConsoleClient(t.app);
    expect((await ops.logIn('ops@example.test')).statusCode).toBe(303);
    const page = await ops.get('/dashboard/users');
    expect(page.body).toContain('<h1>Users</h1>');
    for (const email of ['their-cashier@other.test', 'owner@shop.test', 'kasir@shop.test'])
      expect(page.body).toContain(email);
    const made = await ops.post(
      '/dashboard/users/invite',
      { email: 'kasir2@other.test', merchant: other.merchant.id, role: 'cashier' },
      '/dashboard/users',
    );
    expect(made.statusCode).toBe(201);
    const cashier = await accept(shownLink(made.body));
    expect((await cashier.get('/dashboard/pos')).statusCode).toBe(200);
    const row = await t.deps.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', 'kasir2@other.test')
      .executeTakeFirstOrThrow();
    expect(row.role).toBe('cashier');
    // A cashier needs a merchant to sell for: a clear error on the page.
    const none = await ops.post(
      '/dashboard/users/invite',
      { email: 'kasir3@other.test', merchant: '', role: 'cashier' },
      '/dashboard/users',
    );
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('a cashier needs a merchant to sell for');
    const plain = await ops.post(
      '/dashboard/users/invite',
      { email: 'partner@other.test', merchant: other.merchant.id },
      '/dashboard/users',
    );
    expect(plain.statusCode).toBe(201);
    expect(
      (
        await t.deps.db
          .selectFrom('user_tokens')
          .select('role')
          .where('email', '=', 'partner@other.test')
          .executeTakeFirstOrThrow()
      ).role,
    ).toBe('merchant');
  });

  it('the CLI invites a cashier with --role cashier --merchant ID', async () => {
    const out: string[] = [];
    const env = {
      DATABASE_URL: t.databaseUrl,
      SIGNUP: 'invite',
      PUBLIC_BASE_URL: 'http://gateway.test',
      QRIS_OPERATOR: 'tester',
      DEMO_MERCHANT: 'false',
    };
    const io = { out: (s: string) => void out.push(s), err: () => {} };
    const code = await runCli(
      ['user', 'invite', '--email', 'cli-kasir@shop.test', '--role', 'cashier', '--merchant', t.merchant.id, '--json'],
      io,
      env,
    );
    expect(code).toBe(0);
    const made = JSON.parse(out.join('')) as { email: string; role: string; link: string; mailed: boolean };
    expect(made).toMatchObject({ email: 'cli-kasir@shop.test', role: 'cashier', mailed: false });
    const cashier = await accept(made.link);
    expect((await cashier.get('/dashboard/pos')).statusCode).toBe(200);
    out.length = 0;
    const bare = await runCli(
      ['user', 'invite', '--email', 'cli-kasir2@shop.test', '--role', 'cashier', '--json'],
      io,
      env,
    );
    expect(bare).not.toBe(0);
    expect(JSON.parse(out.join('')).error).toMatchObject({ code: 'invalid_parameter', param: 'merchant' });
  });
});
