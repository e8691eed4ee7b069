import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { addMerchantUser, ConsoleClient, csrfOf, noticeOf, PASSWORD, TEST_ACTOR } from '../../helpers/console.js';
import { startTestSmtpServer, type TestSmtpServer } from '../../helpers/smtp-server.js';
import { inviteUser } from '../../../src/services/users/invite-user.js';
import { loadConfig } from '../../../src/config.js';
import { addWebhookSource } from '../../../src/payment-sources/webhook/setup.js';
import { signPayload } from '../../../src/payment-sources/webhook/signature.js';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { addWebhookEndpoint } from '../../../src/services/webhooks/add-webhook-endpoint.js';
import { dispatchDueDeliveries } from '../../../src/workers/webhook-dispatcher.js';
import { addOperator } from '../../helpers/console.js';
import { seedMerchant } from '../../helpers/context.js';
import { Receiver } from '../../helpers/receiver.js';

const FROM = 'Gateway <noreply@gateway.test>';

describe('sign-up, links by e-mail, reset, invitations and deleting an account', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  beforeAll(async () => {
    smtp = await startTestSmtpServer();
  });
  afterAll(async () => smtp.close());
  afterEach(async () => {
    await t?.close();
    smtp.messages.length = 0;
  });

  const open = (extra: Record<string, string> = {}) =>
    createTestApp({ SIGNUP: 'open', SMTP_URL: smtp.url, MAIL_FROM: FROM, ...extra });

  /** The mails to `to` once there are `count` of them (account mails go out after the answer). */
  async function mailsTo(to: string, count = 1, timeoutMs = 10_000) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = smtp.messages.filter((m) => m.to.includes(to));
      if (found.length >= count || Date.now() > until) return found;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** The link in the newest mail to `to`, once there are `count` mails to it. */
  async function linkTo(to: string, count = 1): Promise<string> {
    const mail = (await mailsTo(to, count)).at(-1);
    expect(mail, `a mail to ${to}`).toBeDefined();
    const text = (await mail!.parse()).text ?? '';
    const m = /http:\/\/gateway\.test(\/dashboard\/[^\s]+)/.exec(text);
    expect(m, text).not.toBeNull();
    return m![1]!;
  }

  it('SIGNUP=closed (the default): /signup and its form are 404', async () => {
    t = await createTestApp();
    expect((await t.app.inject({ url: '/signup' })).statusCode).toBe(404);
    expect((await t.app.inject({ url: '/dashboard/signup' })).statusCode).toBe(404);
    const login = await t.app.inject({ url: '/dashboard' });
    expect(login.body).not.toContain('Sign up');
  });

  it('SIGNUP=open needs a way to send mail', () => {
    expect(() => loadConfig({ SIGNUP: 'open' })).toThrow(/SMTP_URL/);
    expect(loadConfig({ SIGNUP: 'open', SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: FROM }).liveKeys).toBe(
      'approval',
    );
    expect(loadConfig({}).liveKeys).toBe('auto');
    expect(() => loadConfig({ SIGNUP: 'maybe' })).toThrow(/SIGNUP must be one of/);
  });

  it('signs up, verifies through the mailed link (single use) and is logged in', async () => {
    t = await open();
    expect((await t.app.inject({ url: '/signup' })).headers.location).toBe('/dashboard/signup');
    const c = new ConsoleClient(t.app);
    const form = await c.get('/dashboard/signup');
    expect(form.body).toContain('<label for="signup-email">Email</label>');
    expect(form.body).toContain('<label for="signup-password">Password</label>');
    expect(form.body).toMatch(/<button type="submit">Sign up<\/button>/);
    const done = await c.post('/dashboard/signup', { email: 'New@Shop.test', password: PASSWORD }, '/dashboard/signup');
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Check your e-mail');
    // Not yet confirmed: the right password is not enough.
    const early = await c.logIn('new@shop.test');
    expect(early.statusCode).toBe(403);
    expect(early.body).toContain('Confirm your e-mail address first');

    const link = await linkTo('new@shop.test');
    expect(link).toMatch(/^\/dashboard\/signup\/verify\?token=[A-Za-z0-9_-]{43}$/);
    const token = new URL(link, 'http://x').searchParams.get('token')!;
    // The token is stored only as its hash.
    const stored = await t.deps.db.selectFrom('user_tokens').select('token_hash').execute();
    expect(stored.map((r) => r.token_hash)).not.toContain(token);
    const confirmPage = await c.get(link);
    expect(confirmPage.body).toContain('Confirm new@shop.test and log in.');
    expect(confirmPage.body).toContain('<label for="link-password">Password</label>');
    // Looking at the page uses nothing up; the button does, once, with the password.
    const confirmed = await c.post('/dashboard/signup/verify', { token, password: PASSWORD }, link);
    expect(confirmed.statusCode).toBe(303);
    expect((await c.get('/dashboard')).body).toContain('<h1>Overview</h1>');
    const again = await new ConsoleClient(t.app).post(
      '/dashboard/signup/verify',
      { token, password: PASSWORD },
      '/dashboard/reset',
    );
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('This link cannot be used');
    expect((await new ConsoleClient(t.app).logIn('new@shop.test')).statusCode).toBe(303);
  });

  it('answers a taken address exactly as a new one, and mails its owner instead', async () => {
    t = await open();
    const a = new ConsoleClient(t.app);
    await a.post('/dashboard/signup', { email: 'owner@shop.test', password: PASSWORD }, '/dashboard/signup');
    const token = new URL(await linkTo('owner@shop.test'), 'http://x').searchParams.get('token')!;
    await a.post('/dashboard/signup/verify', { token, password: PASSWORD }, '/dashboard/reset');

    const strip = (body: string) => body.replace(/value="[^"]*"/g, '').replace(/[a-z]+@shop\.test/g, 'X');
    const taken = await new ConsoleClient(t.app).post(
      '/dashboard/signup',
      { email: 'owner@shop.test', password: 'a different secret' },
      '/dashboard/signup',
    );
    const fresh = await new ConsoleClient(t.app).post(
      '/dashboard/signup',
      { email: 'fresh@shop.test', password: 'a different secret' },
      '/dashboard/signup',
    );
    expect(taken.statusCode).toBe(fresh.statusCode);
    expect(strip(taken.body)).toBe(strip(fresh.body));
    const owners = await mailsTo('owner@shop.test', 2);
    expect(owners).toHaveLength(2);
    expect((await owners[1]!.parse()).subject).toContain('You already have an account');
    // Nothing changed for the owner: the old password still works.
    expect((await new ConsoleClient(t.app).logIn('owner@shop.test')).statusCode).toBe(303);
  });

  it('resets a password by e-mail, with the same answer for unknown addresses', async () => {
    t = await open();
    const c = new ConsoleClient(t.app);
    await c.post('/dashboard/signup', { email: 'forgetful@shop.test', password: PASSWORD }, '/dashboard/signup');
    await c.post(
      '/dashboard/signup/verify',
      {
        token: new URL(await linkTo('forgetful@shop.test'), 'http://x').searchParams.get('token')!,
        password: PASSWORD,
      },
      '/dashboard/reset',
    );
    const before = smtp.messages.length;
    const unknown = await new ConsoleClient(t.app).post(
      '/dashboard/reset',
      { email: 'ghost@shop.test' },
      '/dashboard/reset',
    );
    const known = await new ConsoleClient(t.app).post(
      '/dashboard/reset',
      { email: 'forgetful@shop.test' },
      '/dashboard/reset',
    );
    expect(unknown.statusCode).toBe(known.statusCode);
    expect(unknown.body.replace(/ghost/g, 'X').replace(/value="[^"]*"/g, '')).toBe(
      known.body.replace(/forgetful/g, 'X').replace(/value="[^"]*"/g, ''),
    );
    const link = await linkTo('forgetful@shop.test', 2);
    expect(smtp.messages.length).toBe(before + 1);
    expect(link).toMatch(/^\/dashboard\/reset\/confirm\?token=/);
    const r = new ConsoleClient(t.app);
    const weak = await r.post(
      '/dashboard/reset/confirm',
      { token: new URL(link, 'http://x').searchParams.get('token')!, password: 'short' },
      link,
    );
    expect(weak.statusCode).toBe(400);
    const ok = await r.post(
      '/dashboard/reset/confirm',
      { token: new URL(link, 'http://x').searchParams.get('token')!, password: 'my brand new secret' },
      link,
    );
    expect(ok.statusCode).toBe(303);
    // The earlier session (from the sign-up) ended with the reset.
    expect((await c.get('/dashboard')).body).toContain('login-password');
    expect((await new ConsoleClient(t.app).logIn('forgetful@shop.test', PASSWORD)).statusCode).toBe(401);
    expect((await new ConsoleClient(t.app).logIn('forgetful@shop.test', 'my brand new secret')).statusCode).toBe(303);
  });

  it('five simultaneous uses of one link: exactly one logs in', async () => {
    t = await open();
    const c = new ConsoleClient(t.app);
    await c.post('/dashboard/signup', { email: 'racer@shop.test', password: PASSWORD }, '/dashboard/signup');
    const link = await linkTo('racer@shop.test');
    const token = new URL(link, 'http://x').searchParams.get('token')!;
    const clients = Array.from({ length: 5 }, () => new ConsoleClient(t.app));
    const tokens = await Promise.all(
      clients.map(async (k) => (await k.get(link)).body.match(/name="_csrf" value="([^"]+)"/)![1]!),
    );
    const answers = await Promise.all(
      clients.map((k, i) => k.post('/dashboard/signup/verify', { token, password: PASSWORD, _csrf: tokens[i]! })),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([303, 410, 410, 410, 410]);
  });

  it('limits sign-ups per client address', async () => {
    t = await open({ SIGNUPS_PER_ADDRESS: '3' });
    const codes: number[] = [];
    for (let i = 0; i < 5; i++)
      codes.push(
        (
          await new ConsoleClient(t.app).post(
            '/dashboard/signup',
            { email: `spam${i}@shop.test`, password: PASSWORD },
            '/dashboard/signup',
          )
        ).statusCode,
      );
    expect(codes).toEqual([200, 200, 200, 200, 429]);
  });

  // issue 23, finding 1: the review's repro. A second sign-up of an address waiting for its confirmation
  // neither replaces the password nor lets the newest link log in anyone who does not type it.
  it('a sign-up of a pending address by someone else never takes the account over', async () => {
    t = await open();
    const tokenOf = (link: string) => new URL(link, 'http://x').searchParams.get('token')!;
    const victim = new ConsoleClient(t.app);
    await victim.post('/dashboard/signup', { email: 'victim@shop.test', password: PASSWORD }, '/dashboard/signup');
    const first = await linkTo('victim@shop.test');

    const strip = (body: string) => body.replace(/value="[^"]*"/g, '').replace(/[a-z]+@shop\.test/g, 'X');
    const attacker = new ConsoleClient(t.app);
    const again = await attacker.post(
      '/dashboard/signup',
      { email: 'victim@shop.test', password: 'the attacker secret' },
      '/dashboard/signup',
    );
    const fresh = await new ConsoleClient(t.app).post(
      '/dashboard/signup',
      { email: 'fresh@shop.test', password: 'the attacker secret' },
      '/dashboard/signup',
    );
    expect(again.statusCode).toBe(fresh.statusCode);
    expect(strip(again.body)).toBe(strip(fresh.body));
    // The new mail went to the address only: a fresh verification link.
    const newest = await linkTo('victim@shop.test', 2);
    await mailsTo('fresh@shop.test');
    expect(smtp.messages.flatMap((m) => m.to).sort()).toEqual([
      'fresh@shop.test',
      'victim@shop.test',
      'victim@shop.test',
    ]);
    expect(newest).toMatch(/^\/dashboard\/signup\/verify\?token=/);
    expect((await victim.get(first)).statusCode).toBe(410);

    // The newest link asks for the password; the attacker's is refused and uses nothing up.
    const page = await victim.get(newest);
    expect(page.body).toContain('Type the password you chose when you signed up.');
    for (const password of ['the attacker secret', '']) {
      const refused = await victim.post('/dashboard/signup/verify', { token: tokenOf(newest), password }, newest);
      expect(refused.statusCode).toBe(401);
      expect(noticeOf(refused.body)).toBe('The password is wrong.');
      expect(victim.jar.has('qg_session')).toBe(false);
    }
    const confirmed = await victim.post(
      '/dashboard/signup/verify',
      { token: tokenOf(newest), password: PASSWORD },
      newest,
    );
    expect(confirmed.statusCode).toBe(303);
    expect((await victim.get('/dashboard')).body).toContain('<h1>Overview</h1>');
    // From then on only the victim's password logs in.
    expect((await new ConsoleClient(t.app).logIn('victim@shop.test', 'the attacker secret')).statusCode).toBe(401);
    expect((await new ConsoleClient(t.app).logIn('victim@shop.test', PASSWORD)).statusCode).toBe(303);
  });

  // issue 23, finding 1: the other order. Whoever signs up first keeps the pending password, so the
  // owner who signs up second cannot confirm with its own; it resets the password by e-mail instead,
  // and the first password (the attacker's) never logs in.
  it('a pending address signed up first by someone else is recovered by a reset, never by the other password', async () => {
    t = await open();
    await new ConsoleClient(t.app).post(
      '/dashboard/signup',
      { email: 'owner@shop.test', password: 'the attacker secret' },
      '/dashboard/signup',
    );
    const owner = new ConsoleClient(t.app);
    await owner.post('/dashboard/signup', { email: 'owner@shop.test', password: PASSWORD }, '/dashboard/signup');
    const link = await linkTo('owner@shop.test', 2);
    const token = new URL(link, 'http://x').searchParams.get('token')!;
    const refused = await owner.post('/dashboard/signup/verify', { token, password: PASSWORD }, link);
    expect(refused.statusCode).toBe(401);
    expect(refused.body).toContain('href="/dashboard/reset"');
    await owner.post('/dashboard/reset', { email: 'owner@shop.test' }, '/dashboard/reset');
    const reset = await linkTo('owner@shop.test', 3);
    expect(reset).toMatch(/^\/dashboard\/reset\/confirm\?token=/);
    const done = await owner.post(
      '/dashboard/reset/confirm',
      { token: new URL(reset, 'http://x').searchParams.get('token')!, password: PASSWORD },
      reset,
    );
    expect(done.statusCode).toBe(303);
    expect((await new ConsoleClient(t.app).logIn('owner@shop.test', 'the attacker secret')).statusCode).toBe(401);
    expect((await new ConsoleClient(t.app).logIn('owner@shop.test', PASSWORD)).statusCode).toBe(303);
  });

  // issue 23, finding 1: wrong passwords on the confirm page count like failed logins; the link survives them.
  it('wrong passwords on the confirm page are counted by the login throttle', async () => {
    t = await open();
    const c = new ConsoleClient(t.app);
    await c.post('/dashboard/signup', { email: 'slow@shop.test', password: PASSWORD }, '/dashboard/signup');
    const link = await linkTo('slow@shop.test');
    const token = new URL(link, 'http://x').searchParams.get('token')!;
    for (let i = 0; i < 6; i++)
      expect((await c.post('/dashboard/signup/verify', { token, password: `wrong guess ${i}` }, link)).statusCode).toBe(
        401,
      );
    const waiting = await c.post('/dashboard/signup/verify', { token, password: PASSWORD }, link);
    expect(waiting.statusCode).toBe(429);
    expect(waiting.headers['retry-after']).toBe('1');
    expect(noticeOf(waiting.body)).toBe('Too many wrong passwords. Try again in 1 seconds.');
    t.clock.advance(1000);
    expect((await c.post('/dashboard/signup/verify', { token, password: PASSWORD }, link)).statusCode).toBe(303);
  });

  // issue 23, finding 3: sign-ups are counted before any work, so a burst gets exactly the allowance
  // (SIGNUPS_PER_ADDRESS = 5 free and the one that starts the wait: 6) and exactly that many mails.
  it('40 concurrent sign-ups from one address: exactly 6 accepted, exactly 6 mails', async () => {
    t = await open();
    const clients = Array.from({ length: 40 }, () => new ConsoleClient(t.app));
    const tokens = await Promise.all(clients.map(async (c) => csrfOf((await c.get('/dashboard/signup')).body)));
    const answers = await Promise.all(
      clients.map((c, i) =>
        c.post('/dashboard/signup', { email: `burst${i}@shop.test`, password: PASSWORD, _csrf: tokens[i]! }),
      ),
    );
    const codes = answers.map((a) => a.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(6);
    expect(codes.filter((c) => c === 429)).toHaveLength(34);
    const until = Date.now() + 10_000;
    while (smtp.messages.length < 6 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.messages).toHaveLength(6);
    expect(await t.deps.db.selectFrom('users').select('id').where('email', 'like', 'burst%').execute()).toHaveLength(6);
  });

  // issue 23, finding 8: account mails go out after the answer, so a relay that is slow to accept a message
  // delays no answer (and a known address answers like an unknown one), and the mail arrives. The relay
  // holds every message until the test lets it go: the answers must come while no mail can be delivered.
  it('a reset request and a sign-up answer before the mail is sent; the mail still arrives', async () => {
    let release!: () => void;
    const held = await startTestSmtpServer({ holdUntil: new Promise<void>((r) => (release = r)) });
    try {
      t = await createTestApp({ SIGNUP: 'open', SMTP_URL: held.url, MAIL_FROM: FROM });
      await addMerchantUser(t.deps, [t.merchant.id], 'known@shop.test');
      const submit = async (path: string, fields: Record<string, string>) => {
        const c = new ConsoleClient(t.app);
        const token = csrfOf((await c.get(path)).body);
        return (await c.post(path, { ...fields, _csrf: token })).statusCode;
      };
      // Were an answer to wait for its mail, it would never come while the relay holds it.
      const known = await submit('/dashboard/reset', { email: 'known@shop.test' });
      const unknown = await submit('/dashboard/reset', { email: 'ghost@shop.test' });
      const signedUp = await submit('/dashboard/signup', { email: 'newcomer@shop.test', password: PASSWORD });
      expect([known, unknown, signedUp]).toEqual([200, 200, 200]);
      // Every answer is out; the first mail is at the relay, held there undelivered.
      await expect.poll(() => held.dataAttempts, { timeout: 15_000, interval: 20 }).toBeGreaterThanOrEqual(1);
      expect(held.messages).toEqual([]);
      release();
      await expect.poll(() => held.messages.length, { timeout: 15_000, interval: 20 }).toBe(2);
      expect(held.messages.flatMap((m) => m.to).sort()).toEqual(['known@shop.test', 'newcomer@shop.test']);
      expect((await held.messages.find((m) => m.to.includes('known@shop.test'))!.parse()).subject).toContain(
        'Reset your password',
      );
    } finally {
      release();
      await t.close();
      await held.close();
    }
  }, 30_000);

  it('an invitation makes a confirmed merchant user of the invited merchant', async () => {
    t = await createTestApp({ SIGNUP: 'invite', SMTP_URL: smtp.url, MAIL_FROM: FROM });
    expect((await t.app.inject({ url: '/dashboard/signup' })).statusCode).toBe(404);
    const made = await inviteUser(t.deps, null, { email: 'staff@shop.test', merchantIds: [t.merchant.id] }, TEST_ACTOR);
    const path = made.link.replace('http://gateway.test', '');
    const c = new ConsoleClient(t.app);
    expect((await c.get(path)).body).toContain('Choose a password for staff@shop.test.');
    const ok = await c.post(
      '/dashboard/invite',
      { token: new URL(made.link).searchParams.get('token')!, password: PASSWORD },
      path,
    );
    expect(ok.statusCode).toBe(303);
    const user = await t.deps.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', 'staff@shop.test')
      .executeTakeFirstOrThrow();
    expect(user.role).toBe('merchant');
    expect(user.email_verified_at).not.toBeNull();
    const members = await t.deps.db
      .selectFrom('user_merchants')
      .select('merchant_id')
      .where('user_id', '=', user.id)
      .execute();
    expect(members.map((m) => m.merchant_id)).toEqual([t.merchant.id]);
  });

  it('deleting an account erases its personal data, closes a merchant nobody else has, and keeps its transactions', async () => {
    t = await createTestApp({ SIGNUP: 'invite' });
    const made = await inviteUser(
      t.deps,
      null,
      { email: 'leaving@shop.test', merchantIds: [t.merchant.id] },
      TEST_ACTOR,
    );
    const c = new ConsoleClient(t.app);
    await c.post(
      '/dashboard/invite',
      { token: new URL(made.link).searchParams.get('token')!, password: PASSWORD },
      made.link.replace('http://gateway.test', ''),
    );
    const created = await t.app.inject({
      url: '/api/payment-gateway/cqris?amount=10000',
      headers: { 'x-api-key': t.testKey },
    });
    expect(created.statusCode).toBe(200);
    const wrong = await c.post('/dashboard/account/delete', { password: 'not my password' }, '/dashboard/account');
    expect(wrong.statusCode).toBe(400);
    const gone = await c.post('/dashboard/account/delete', { password: PASSWORD }, '/dashboard/account');
    expect(gone.statusCode).toBe(303);
    const users = await t.deps.db.selectFrom('users').selectAll().where('email', 'like', '%leaving%').execute();
    expect(users).toEqual([]);
    const key = await t.app.inject({
      url: '/api/payment-gateway/cqris?amount=10000',
      headers: { 'x-api-key': t.testKey },
    });
    expect(key.statusCode).toBe(401);
    const merchant = await t.deps.db
      .selectFrom('merchants')
      .select('disabled_at')
      .where('id', '=', t.merchant.id)
      .executeTakeFirstOrThrow();
    expect(merchant.disabled_at).not.toBeNull();
    expect(
      await t.deps.db.selectFrom('transactions').select('id').where('merchant_id', '=', t.merchant.id).execute(),
    ).toHaveLength(1);
    expect((await new ConsoleClient(t.app).logIn('leaving@shop.test')).statusCode).toBe(401);
  });

  // issue 24, item 4: the deletion was audited as user:<id> while every other action of the same person
  // was user:<email>, so the audit page's filter by actor lost the last thing they did.
  it("audits an account's deletion under the same name as its other actions", async () => {
    t = await createTestApp({ SIGNUP: 'invite' });
    const made = await inviteUser(
      t.deps,
      null,
      { email: 'leaving@shop.test', merchantIds: [t.merchant.id] },
      TEST_ACTOR,
    );
    const c = new ConsoleClient(t.app);
    await c.post(
      '/dashboard/invite',
      { token: new URL(made.link).searchParams.get('token')!, password: PASSWORD },
      made.link.replace('http://gateway.test', ''),
    );
    const links = `/dashboard/links/${t.merchant.id}`;
    expect((await c.post(links, { handle: 'warung-pergi' }, links)).statusCode).toBe(303);
    expect((await c.post('/dashboard/account/delete', { password: PASSWORD }, '/dashboard/account')).statusCode).toBe(
      303,
    );
    const mine = ['user.accept_invite', 'merchant.payment_link_set', 'user.delete'];
    const rows = await t.deps.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('action', 'in', mine)
      .execute();
    expect(rows.map((r) => [r.action, r.actor]).sort()).toEqual(
      mine.map((action) => [action, 'user:leaving@shop.test']).sort(),
    );
  });

  // issue 23, finding 9: the review's repro. A deleted user's signed source still marked a transaction
  // paid, deliveries kept flowing and the link handle stayed taken.
  it('deleting an account turns off what acted for its merchant: signed source, queued webhooks, link handle', async () => {
    const receiver = await Receiver.start();
    try {
      t = await createTestApp({ SIGNUP: 'invite', WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8' });
      const made = await inviteUser(
        t.deps,
        null,
        { email: 'leaving@shop.test', merchantIds: [t.merchant.id] },
        TEST_ACTOR,
      );
      const c = new ConsoleClient(t.app);
      await c.post(
        '/dashboard/invite',
        { token: new URL(made.link).searchParams.get('token')!, password: PASSWORD },
        made.link.replace('http://gateway.test', ''),
      );
      const links = `/dashboard/links/${t.merchant.id}`;
      expect((await c.post(links, { handle: 'warung-pergi' }, links)).statusCode).toBe(303);
      expect((await t.app.inject({ url: '/pay/warung-pergi' })).statusCode).toBe(200);
      const source = await addWebhookSource(t.deps, { merchantId: t.merchant.id, mode: 'test' });
      await addWebhookEndpoint(t.deps, { merchantId: t.merchant.id, url: receiver.url() });
      const create = async (amount: number) =>
        (
          await t.app.inject({
            url: `/api/payment-gateway/cqris?amount=${amount}`,
            headers: { 'x-api-key': t.testKey },
          })
        ).json().data;
      let n = 0;
      const report = (total: number) => {
        const body = JSON.stringify({
          id: `wallet-${++n}`,
          amount: total,
          paid_at: new Date(t.clock.now()).toISOString(),
        });
        const headers = {
          'content-type': 'application/json',
          'x-signature': signPayload(source.secret, body, Math.floor(t.clock.now() / 1000)),
        };
        return t.app.inject({ method: 'POST', url: source.url, headers, payload: body });
      };

      // Before: the source pays, and the payment's event waits in the outbox for the dispatcher.
      const before = await create(10_000);
      expect((await report(before.total_amount)).json().data.status).toBe('matched');
      const open = await create(20_000);
      const queued = await t.deps.db.selectFrom('deliveries').select(['id', 'status']).execute();
      expect(queued.map((d) => d.status)).toEqual(['pending']);

      expect((await c.post('/dashboard/account/delete', { password: PASSWORD }, '/dashboard/account')).statusCode).toBe(
        303,
      );

      // The signed source is gone: its report is refused, nothing is stored, the transaction stays open.
      const refused = await report(open.total_amount);
      expect(refused.statusCode).toBe(404);
      expect(refused.json().error.code).toBe('source_not_found');
      const status = await t.deps.db
        .selectFrom('transactions')
        .select('status')
        .where('id', '=', open.trxid)
        .executeTakeFirstOrThrow();
      expect(status.status).toBe('pending');
      // A report that still reaches recordPayment (a poll or request already under way) is kept, but pays nothing.
      const late = await recordPayment(t.deps, {
        merchantId: t.merchant.id,
        mode: 'test',
        source: source.id,
        sourcePaymentId: 'in-flight',
        amount: open.total_amount,
        paidAt: t.clock.now(),
      });
      expect([late.outcome, late.reason, late.payment.transaction_id]).toEqual([
        'unmatched',
        'merchant_disabled',
        null,
      ]);
      expect((await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, open.trxid)).outcome).toBe(
        'unmatched',
      );
      expect(
        (
          await t.deps.db
            .selectFrom('transactions')
            .select('status')
            .where('id', '=', open.trxid)
            .executeTakeFirstOrThrow()
        ).status,
      ).toBe('pending');

      // The queued delivery is closed (as when an endpoint is removed): the dispatcher sends nothing.
      expect((await dispatchDueDeliveries(t.deps, { random: () => 0.5 })).claimed).toBe(0);
      expect(receiver.requests).toHaveLength(0);
      const closed = await t.deps.db
        .selectFrom('deliveries')
        .select('status')
        .where('id', '=', queued[0]!.id)
        .executeTakeFirstOrThrow();
      expect(closed.status).toBe('failed');
      const endpoints = await t.deps.db
        .selectFrom('webhook_endpoints')
        .select('status')
        .where('merchant_id', '=', t.merchant.id)
        .execute();
      expect(endpoints.map((e) => e.status)).toEqual(['disabled']);
      const sources = await t.deps.db
        .selectFrom('payment_sources')
        .select('enabled')
        .where('merchant_id', '=', t.merchant.id)
        .execute();
      expect(sources.map((x) => x.enabled)).toEqual([0]);

      // The handle is free: its page is a 404, and another merchant takes it.
      expect((await t.app.inject({ url: '/pay/warung-pergi' })).statusCode).toBe(404);
      const other = await seedMerchant(t.deps, 2, 'Warung Lain');
      await addOperator(t.deps);
      const ops = new ConsoleClient(t.app);
      await ops.logIn('ops@example.test');
      const otherLinks = `/dashboard/links/${other.merchant.id}`;
      const taken = await ops.post(otherLinks, { handle: 'warung-pergi' }, otherLinks);
      expect(taken.headers.location).toBe(otherLinks);
      const holder = await t.deps.db
        .selectFrom('merchants')
        .select('id')
        .where('payment_link_handle', '=', 'warung-pergi')
        .execute();
      expect(holder.map((h) => h.id)).toEqual([other.merchant.id]);
      expect((await t.app.inject({ url: '/pay/warung-pergi' })).statusCode).toBe(200);
      const audit = await t.deps.db
        .selectFrom('audit_log')
        .select('details')
        .where('action', '=', 'user.delete')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(audit.details!)).toEqual({
        merchants_closed: [t.merchant.id],
        handles_freed: ['warung-pergi'],
      });
    } finally {
      await receiver.close();
    }
  });
});
