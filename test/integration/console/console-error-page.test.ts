// Issue 37, section 5: the console's error page with the database out of reach. A logged-in person who
// reloads a page then reads, in the language chosen, that the database cannot be reached (not the error's
// English message), and is offered "Try again" on the same page, not the login form: the session cookie
// could not be checked, and it may well be alive. A person with no session still gets the way to the
// login; a viewer's refusal that is no outage still has no "Try again".
import { afterEach, describe, expect, it } from 'vitest';
import { addMerchantUser, ConsoleClient } from '../../helpers/console.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { sessionOutage } from '../../helpers/session-outage.js';

// The database "stopped" for the session's read (test/helpers/session-outage.ts).

describe('the console error page with the database out of reach', () => {
  let t: TestApp | null = null;
  let outage = { on: false };
  afterEach(async () => {
    outage.on = false;
    await t?.close();
    t = null;
  });

  async function loggedIn(lang: 'en' | 'id'): Promise<{ app: TestApp; c: ConsoleClient }> {
    const app = await createTestApp({ CONSOLE: 'true' });
    t = app;
    outage = sessionOutage(app.deps.db);
    await addMerchantUser(app.deps, [app.merchant.id]);
    const c = new ConsoleClient(app.app);
    expect((await c.logIn('shop@example.test')).statusCode).toBe(303);
    expect((await c.get(`/dashboard/lang/${lang}?back=/dashboard/transactions`)).statusCode).toBe(303);
    expect((await c.get('/dashboard/transactions')).statusCode).toBe(200);
    return { app, c };
  }

  const links = (page: string) =>
    [...page.matchAll(/<a [^>]*href="([^"]*)"[^>]*>([^<]*)<\/a>/g)].map((m) => `${m[2]} -> ${m[1]}`);

  it('in Indonesian: "Sementara tidak tersedia", its text in Indonesian, and "Coba lagi" to the same page', async () => {
    const { c } = await loggedIn('id');
    outage.on = true;
    const res = await c.get('/dashboard/transactions?status=paid');
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.body).toContain('<html lang="id"');
    expect(res.body).toContain('<h1>Sementara tidak tersedia</h1>');
    expect(res.body).toContain('Gateway sedang tidak dapat menjangkau basis datanya.');
    expect(res.body).not.toMatch(/database is not reachable|Tidak dapat dilakukan|Kembali ke halaman masuk/);
    expect(links(res.body)).toContain('Coba lagi -> /dashboard/transactions?status=paid');
  });

  it('in English: "Temporarily unavailable" and "Try again", no "Back to the login"', async () => {
    const { c } = await loggedIn('en');
    outage.on = true;
    const res = await c.get('/dashboard');
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('<html lang="en"');
    expect(res.body).toContain('<h1>Temporarily unavailable</h1>');
    expect(res.body).toContain('The gateway cannot reach its database just now.');
    expect(res.body).not.toMatch(/This cannot be done|Back to the login/);
    expect(links(res.body)).toContain('Try again -> /dashboard');
  });

  it('a form posted meanwhile leads back to its page', async () => {
    const { c } = await loggedIn('en');
    const keysPage = await c.get('/dashboard/keys');
    expect(keysPage.statusCode).toBe(200);
    outage.on = true;
    const token = /name="_csrf" value="([^"]+)"/.exec(keysPage.body)![1]!;
    const posted = await c.post('/dashboard/keys', { _csrf: token, mode: 'test' });
    expect(posted.statusCode).toBe(503);
    expect(posted.body).toContain('<h1>Temporarily unavailable</h1>');
    expect(links(posted.body)).toContain('Back to the form -> /dashboard/keys');
    // Not sent again by a link (a GET would not post it), and not to the login form either.
    expect(links(posted.body).filter((l) => /Try again|Back to the login/.test(l))).toEqual([]);
  });

  it('a refusal that is no outage offers no "Try again"', async () => {
    const { c } = await loggedIn('id');
    const res = await c.get('/dashboard/transactions/trx_nothere');
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('Coba lagi');
    expect(res.body).toContain('Kembali ke ringkasan');
  });
});
