// issue 23, finding 2: anonymous password forms (bogus reset and invitation links, failed logins) must
// not stall payments. Real HTTP to a listening gateway; creates with an Idempotency-Key run while 600
// such posts are in flight at once. The tests assert order (a create answers while the hashes ahead of it
// are still running), never speed: the latencies are printed, not compared with a bound.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { csrfOf } from '../../helpers/console.js';
import { hashPassword } from '../../../src/hashing/passwords.js';
import { HASHES_WAITING_MAX, hasherLoad } from '../../../src/hashing/password-hasher.js';

const PASSWORD = 'a long enough password';

/** One create with an Idempotency-Key (the client's kind) over HTTP; its time in ms. */
async function timedCreate(base: string, key: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(
    `${base}/api/payment-gateway/cqris?amount=${10_000 + Math.floor(Math.random() * 1_000_000)}`,
    {
      headers: { 'x-api-key': key, 'idempotency-key': randomUUID() },
    },
  );
  await res.arrayBuffer();
  expect(res.status).toBe(200);
  return performance.now() - started;
}

describe('password hashing under an anonymous flood', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('with the hashing threads full, a login is refused at once (503, Retry-After) and creates do not wait for the hashes', async () => {
    t = await createTestApp();
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const page = await fetch(`${base}/dashboard`);
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = csrfOf(await page.text());
    const create = () => timedCreate(base, t.testKey);
    await create();
    // Keeps every hashing thread and queue place taken: each hash that ends tops the queue up again in the
    // same turn of the event loop (the worker's answer and its promise callbacks run before any socket is
    // read), so the login below can never find a free place, however slow the database makes it.
    const hashes: Promise<unknown>[] = [];
    let finished = 0;
    let filling = true;
    const topUp = (): void => {
      while (filling && (hasherLoad().running === 0 || hasherLoad().waiting < HASHES_WAITING_MAX)) {
        const done = () => {
          finished++;
          topUp();
        };
        hashes.push(hashPassword('a long enough password').then(done, done));
      }
    };
    topUp();
    const login = await fetch(`${base}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        email: 'someone@example.test',
        password: 'a long enough password',
        next: '/dashboard',
        _csrf: csrf,
      }).toString(),
    });
    expect(login.status).toBe(503);
    expect(login.headers.get('retry-after')).toBe('1');
    expect(await login.text()).toContain('The server is busy just now. Try again in a moment.');
    // Each create answers before the hashes that were running or waiting when it started are all done:
    // had it waited behind them (as behind scrypt on libuv's pool), at least that many would have ended.
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const ahead = hashes.length - finished;
      const finishedBefore = finished;
      latencies.push(await create());
      expect(ahead).toBeGreaterThan(HASHES_WAITING_MAX);
      expect(finished - finishedBefore).toBeLessThan(ahead);
    }
    filling = false;
    await Promise.all(hashes);
    const sorted = latencies.sort((a, b) => a - b);
    console.log(
      `creates with the hasher full: n=${sorted.length} median=${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms max=${sorted.at(-1)!.toFixed(1)} ms`,
    );
  }, 60_000);

  it('creates keep answering while 200 bogus reset confirms, 200 bogus invitation accepts and 200 failed logins run', async () => {
    t = await createTestApp({ SIGNUP: 'invite' });
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });

    // One logged-out CSRF token (with its cookie) serves every anonymous form post.
    // The login form: the reset form is not offered where no mail can be sent (SMTP_URL unset here).
    const page = await fetch(`${base}/dashboard`);
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = csrfOf(await page.text());
    const post = async (path: string, fields: Record<string, string>) => {
      const res = await fetch(`${base}/dashboard${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...fields, _csrf: csrf }).toString(),
      });
      await res.arrayBuffer();
      return res.status;
    };
    const bogus = () => randomBytes(32).toString('base64url');
    const create = () => timedCreate(base, t.testKey);
    await create(); // warm up

    const storm = Promise.all([
      ...Array.from({ length: 200 }, () => post('/reset/confirm', { token: bogus(), password: PASSWORD })),
      ...Array.from({ length: 200 }, () => post('/invite', { token: bogus(), password: PASSWORD })),
      ...Array.from({ length: 200 }, (_, i) =>
        post('/login', { email: `nobody${i}@example.test`, password: PASSWORD, next: '/dashboard' }),
      ),
    ]);
    let over = false;
    void storm.finally(() => (over = true));
    // Once the flood's hashes fill the hashing threads, creates answer one after another while the
    // flood is still being answered (had they waited behind its hashes, the flood would be over first).
    await expect.poll(() => hasherLoad().running, { timeout: 60_000, interval: 5 }).toBeGreaterThan(0);
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      latencies.push(await create());
      expect(over, `create ${i + 1} answered only after the flood`).toBe(false);
    }
    while (!over) latencies.push(await create());
    const statuses = await storm;

    const sorted = [...latencies].sort((a, b) => a - b);
    const max = sorted.at(-1)!;
    const median = sorted[Math.floor(sorted.length / 2)]!;
    console.log(`creates under the flood: n=${sorted.length} median=${median.toFixed(1)} ms max=${max.toFixed(1)} ms`);
    // Every post got an answer the person can act on: a dead link, a wrong login, a throttle or "busy".
    for (const s of statuses) expect([401, 410, 429, 503]).toContain(s);
  }, 180_000);
});
