import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, seedMerchant, type Seeded, type TestApp } from '../../helpers/context.js';
import { addMerchantUser, addOperator, ConsoleClient, csrfOf } from '../../helpers/console.js';
import { setPaymentLinkHandle } from '../../../src/services/payment-links/set-handle.js';
import { AppError } from '../../../src/domain/errors.js';
import type { Viewer } from '../../../src/domain/viewer.js';

// jsqr is CommonJS with ES-style typings (see test/unit/qr-image.test.ts).
const jsQR = jsQRModule.default;

const operatorViewer = (email = 'ops@example.test'): Viewer => ({
  userId: 'usr_x',
  email,
  role: 'operator',
  merchantIds: [],
  sessionKey: 'k',
  actor: { kind: 'user' as const, email: email },
});

describe('console: payment links', () => {
  let t: TestApp;
  let other: Seeded;
  afterEach(async () => t?.close());

  async function setup() {
    t = await createTestApp({ PUBLIC_BASE_URL: 'https://pay.example.test' });
    other = await seedMerchant(t.deps, 1, 'Toko Lain');
    await addOperator(t.deps);
    await addMerchantUser(t.deps, [t.merchant.id], 'shop@example.test');
  }

  async function as(email: string) {
    const c = new ConsoleClient(t.app);
    expect((await c.logIn(email)).statusCode).toBe(303);
    return c;
  }

  const handleOf = async (merchantId: string) =>
    (
      await t.deps.db
        .selectFrom('merchants')
        .select('payment_link_handle')
        .where('id', '=', merchantId)
        .executeTakeFirstOrThrow()
    ).payment_link_handle;

  const notice = (res: LightMyRequestResponse) =>
    /<p class="notice (?:success|error)" role="(?:status|alert)">([^<]*)<\/p>/.exec(res.body)?.[1];

  // The logged-out page: route-common.test.ts.
  it('sends a logged-out form post to the login form', async () => {
    await setup();
    const post = await t.app.inject({
      method: 'POST',
      url: `/dashboard/links/${t.merchant.id}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'handle=sneaky',
    });
    expect(post.statusCode).toBe(303);
    expect(await handleOf(t.merchant.id)).toBeNull();
  });

  it('an operator lists every merchant, sets a handle and sees the link, its example, QR and print view', async () => {
    await setup();
    const c = await as('ops@example.test');
    const list = await c.get('/dashboard/links');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('<a href="/dashboard/links" aria-current="page">Links</a>');
    expect(list.body).toContain('Test Merchant');
    expect(list.body).toContain('Toko Lain');
    expect(list.body).toContain('<th>Merchant</th>');

    const page = await c.get(`/dashboard/links/${t.merchant.id}`);
    expect(page.body).toContain('<label for="link-handle">Handle</label>');
    expect(page.body).not.toContain('qr.png');
    const saved = await c.post(
      `/dashboard/links/${t.merchant.id}`,
      { handle: ' Warung-Saya ' },
      `/dashboard/links/${t.merchant.id}`,
    );
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`/dashboard/links/${t.merchant.id}`);
    expect(await handleOf(t.merchant.id)).toBe('warung-saya');

    const after = await c.get(saved.headers.location as string);
    expect(notice(after)).toBe('The payment link is saved.');
    expect(after.body).toContain('href="https://pay.example.test/pay/warung-saya"');
    expect(after.body).toContain('href="https://pay.example.test/pay/warung-saya/25000"');
    expect(after.body).toContain('value="warung-saya"');
    expect(after.body).toContain(`data-confirm="Remove this payment link? Printed QR codes of it stop working."`);

    const png = await c.get(`/dashboard/links/${t.merchant.id}/qr.png`);
    expect(png.statusCode).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    const img = PNG.sync.read(png.rawPayload);
    expect(
      jsQR(new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length), img.width, img.height)?.data,
    ).toBe('https://pay.example.test/pay/warung-saya');

    const print = await c.get(`/dashboard/links/${t.merchant.id}/print`);
    expect(print.statusCode).toBe(200);
    expect(print.body).toContain('<div class="print-sheet">');
    expect(print.body).toContain(`<h1>${t.merchant.merchant_name}</h1>`);
    expect(print.body).toContain('https://pay.example.test/pay/warung-saya');
    expect(print.body).toContain('data-print');

    const audit = await t.deps.db
      .selectFrom('audit_log')
      .selectAll()
      .where('subject_id', '=', t.merchant.id)
      .where('action', 'like', 'merchant.payment_link%')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor: 'user:ops@example.test',
      action: 'merchant.payment_link_set',
      subject_type: 'merchant',
    });
    expect(JSON.parse(audit[0]!.details!)).toEqual({ from: null, to: 'warung-saya' });
    expect((await c.get('/dashboard/links')).body).toContain('/pay/warung-saya');
  });

  it('refuses a bad handle with a clear notice and changes nothing', async () => {
    await setup();
    const c = await as('ops@example.test');
    await c.post(`/dashboard/links/${t.merchant.id}`, { handle: 'first' });
    const cases: Array<[string, string]> = [
      ['', 'Type a handle.'],
      ['ab', 'A handle has 3 to 32 characters.'],
      ['x'.repeat(33), 'A handle has 3 to 32 characters.'],
      ['warung saya', 'A handle may contain only letters a-z, digits and &quot;-&quot;.'],
      ['-warung', 'A handle must start with a letter or a digit.'],
      ['Dashboard', 'This handle is reserved for the gateway itself. Choose another.'],
    ];
    for (const [typed, message] of cases) {
      const res = await c.post(`/dashboard/links/${t.merchant.id}`, { handle: typed });
      expect(res.statusCode).toBe(303);
      const shown = await c.get(res.headers.location as string);
      expect(notice(shown), typed).toBe(message);
      expect(shown.body).toContain(`value="${typed.replace(/&/g, '&amp;')}"`);
    }
    expect(await handleOf(t.merchant.id)).toBe('first');
    // The address the old redirect used says nothing and fills nothing in.
    const crafted = await c.get(`/dashboard/links/${t.merchant.id}?error=taken&handle=call-us`);
    expect(notice(crafted)).toBeUndefined();
    expect(crafted.body).not.toContain('value="call-us"');
    expect(crafted.body).not.toContain('is taken');
    expect(crafted.body).toContain('value="first"');
    // A CSRF failure changes nothing either.
    const forged = await c.post(`/dashboard/links/${t.merchant.id}`, { handle: 'forged', _csrf: 'not-a-token' });
    expect(forged.statusCode).toBe(403);
    expect(await handleOf(t.merchant.id)).toBe('first');
  });

  it('tells the second merchant that a handle is taken', async () => {
    await setup();
    const c = await as('ops@example.test');
    await c.post(`/dashboard/links/${t.merchant.id}`, { handle: 'warung' });
    const res = await c.post(`/dashboard/links/${other.merchant.id}`, { handle: 'WARUNG' });
    expect(notice(await c.get(res.headers.location as string))).toBe(
      'The handle &quot;WARUNG&quot; is taken by another merchant. Choose another.',
    );
    expect(await handleOf(other.merchant.id)).toBeNull();
    // Saving one's own handle again is fine (and writes no audit row).
    const same = await c.post(`/dashboard/links/${t.merchant.id}`, { handle: 'warung' });
    expect(same.headers.location).toBe(`/dashboard/links/${t.merchant.id}`);
    expect(
      await t.deps.db
        .selectFrom('audit_log')
        .selectAll()
        .where('subject_id', '=', t.merchant.id)
        .where('action', 'like', 'merchant.payment_link%')
        .execute(),
    ).toHaveLength(1);
  });

  it("a merchant user sees and sets only its own merchant's link: any other is a 404", async () => {
    await setup();
    await setPaymentLinkHandle(t.deps, operatorViewer(), other.merchant.id, 'toko-lain');
    const c = await as('shop@example.test');
    const list = await c.get('/dashboard/links');
    expect(list.body).toContain('Test Merchant');
    expect(list.body).not.toContain('Toko Lain');
    expect(list.body).not.toContain(other.merchant.id);
    for (const url of [
      `/dashboard/links/${other.merchant.id}`,
      `/dashboard/links/${other.merchant.id}/qr.png`,
      `/dashboard/links/${other.merchant.id}/print`,
      '/dashboard/links/mch_nonexistent',
    ]) {
      const res = await c.get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body).toContain('There is nothing here, or it is not yours to see.');
    }
    const unknown = await c.get('/dashboard/links/mch_nonexistent');
    const foreign = await c.get(`/dashboard/links/${other.merchant.id}`);
    const plain = (body: string) => body.replace(/mch_\w+/g, '').replace(/name="_csrf" value="[^"]+"/g, '');
    expect(plain(foreign.body)).toBe(plain(unknown.body));
    const set = await c.post(`/dashboard/links/${other.merchant.id}`, { handle: 'hijacked' });
    expect(set.statusCode).toBe(404);
    const removed = await c.post(`/dashboard/links/${other.merchant.id}/remove`, {});
    expect(removed.statusCode).toBe(404);
    expect(await handleOf(other.merchant.id)).toBe('toko-lain');

    const own = await c.post(`/dashboard/links/${t.merchant.id}`, { handle: 'my-shop' });
    expect(own.headers.location).toBe(`/dashboard/links/${t.merchant.id}`);
    expect(await handleOf(t.merchant.id)).toBe('my-shop');
    const audit = await t.deps.db
      .selectFrom('audit_log')
      .selectAll()
      .where('subject_id', '=', t.merchant.id)
      .where('action', 'like', 'merchant.payment_link%')
      .executeTakeFirstOrThrow();
    expect(audit.actor).toBe('user:shop@example.test');
    expect((await c.get(`/dashboard/links/${t.merchant.id}/qr.png`)).statusCode).toBe(200);
  });

  it('removes a link, after which its QR is a 404', async () => {
    await setup();
    const c = await as('ops@example.test');
    await c.post(`/dashboard/links/${t.merchant.id}`, { handle: 'warung' });
    const from = `/dashboard/links/${t.merchant.id}`;
    const res = await c.post(`/dashboard/links/${t.merchant.id}/remove`, { _csrf: csrfOf((await c.get(from)).body) });
    expect(res.headers.location).toBe(`/dashboard/links/${t.merchant.id}`);
    expect(notice(await c.get(res.headers.location as string))).toBe(
      'The payment link is removed: its address no longer opens a payment.',
    );
    expect(await handleOf(t.merchant.id)).toBeNull();
    expect((await c.get(`/dashboard/links/${t.merchant.id}/qr.png`)).statusCode).toBe(404);
    // The handle is free again for anyone.
    await setPaymentLinkHandle(t.deps, operatorViewer(), other.merchant.id, 'warung');
    expect(await handleOf(other.merchant.id)).toBe('warung');
  });

  it("says when a merchant's link cannot take payments yet, or any more", async () => {
    await setup();
    const c = await as('ops@example.test');
    await t.deps.db.updateTable('merchants').set({ live_approved_at: null }).where('id', '=', t.merchant.id).execute();
    await t.deps.db
      .updateTable('merchants')
      .set({ disabled_at: t.clock.ms })
      .where('id', '=', other.merchant.id)
      .execute();
    const list = await c.get('/dashboard/links');
    expect(list.body).toContain('<span class="badge pending">awaiting approval</span>');
    expect(list.body).toContain('<span class="badge disabled">disabled</span>');
    expect((await c.get(`/dashboard/links/${t.merchant.id}`)).body).toContain(
      'Live payments of this merchant wait for an operator&#39;s approval',
    );
    expect((await c.get(`/dashboard/links/${other.merchant.id}`)).body).toContain('This merchant is disabled');
  });

  it('speaks Bahasa Indonesia', async () => {
    await setup();
    const c = await as('ops@example.test');
    await c.get('/dashboard/lang/id');
    const res = await c.get('/dashboard/links');
    expect(res.body).toContain('<h1>Tautan pembayaran</h1>');
    const page = await c.get(`/dashboard/links/${t.merchant.id}`);
    expect(page.body).toContain('<button type="submit">Simpan</button>');
  });

  it('a concurrent double claim of one handle has one winner; the other is told it is taken', async () => {
    await setup();
    const extra = await Promise.all([2, 3, 4].map((i) => seedMerchant(t.deps, i % 3, `M${i}`)));
    const ids = [t.merchant.id, other.merchant.id, ...extra.map((s) => s.merchant.id)];
    for (let round = 0; round < 5; round++) {
      const handle = `shared-${round}`;
      const outcomes = await Promise.allSettled(
        ids.map((id) => setPaymentLinkHandle(t.deps, operatorViewer(), id, handle)),
      );
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      expect(won, `round ${round}`).toHaveLength(1);
      for (const o of outcomes) {
        if (o.status === 'rejected') {
          expect(o.reason).toBeInstanceOf(AppError);
          expect((o.reason as AppError).code).toBe('handle_taken');
        }
      }
      const holders = await t.deps.db
        .selectFrom('merchants')
        .select('id')
        .where('payment_link_handle', '=', handle)
        .execute();
      expect(holders).toHaveLength(1);
      // Free them for the next round.
      for (const id of ids) await setPaymentLinkHandle(t.deps, operatorViewer(), id, null);
    }
  });

  it('two console users claiming one handle at once: one saved, one told it is taken', async () => {
    await setup();
    const a = await as('ops@example.test');
    await addOperator(t.deps, 'ops2@example.test');
    const b = await as('ops2@example.test');
    const [tokenA, tokenB] = [
      csrfOf((await a.get('/dashboard/links')).body),
      csrfOf((await b.get('/dashboard/links')).body),
    ];
    const [ra, rb] = await Promise.all([
      a.post(`/dashboard/links/${t.merchant.id}`, { handle: 'race', _csrf: tokenA }),
      b.post(`/dashboard/links/${other.merchant.id}`, { handle: 'race', _csrf: tokenB }),
    ]);
    // Each back to its own page, which says the outcome (issue 24, item 3: the notice is no longer in the URL).
    expect([ra.headers.location, rb.headers.location]).toEqual([
      `/dashboard/links/${t.merchant.id}`,
      `/dashboard/links/${other.merchant.id}`,
    ]);
    const said = [notice(await a.get(String(ra.headers.location))), notice(await b.get(String(rb.headers.location)))];
    expect(said.filter((s) => s === 'The payment link is saved.')).toHaveLength(1);
    expect(
      said.filter((s) => s === 'The handle &quot;race&quot; is taken by another merchant. Choose another.'),
    ).toHaveLength(1);
  });
});
