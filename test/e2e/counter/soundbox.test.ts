// The soundbox and the receipt in a real Chromium (issue 27, sections 2 and 5, "Done when"): payments made
// through the API and through a payment link are each said aloud once, also across a cut connection;
// the receipt prints at 58 mm. speechSynthesis.speak is replaced before the page loads, so the test
// hears exactly what the page asked the device to say.
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Viewer } from '../../../src/domain/viewer.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { setPaymentLinkHandle } from '../../../src/services/payment-links/set-handle.js';
import { CQRIS, SIMULATE } from '../../helpers/api.js';
import { useBrowserApp } from '../../helpers/browser.js';
import { addMerchantUser } from '../../helpers/console.js';
import { loggedIn, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { databaseOutage } from '../../helpers/session-outage.js';

/** Pictures looked at but not shown in the docs (SHOTS holds the docs' when making them). */
const LOOKED_AT = join(tmpdir(), 'qg-shots');
mkdirSync(LOOKED_AT, { recursive: true });

interface Spoken {
  text: string;
  lang: string;
}

/** Runs before any script of the page: every utterance the page speaks is kept, none is played. */
function recordSpeech(): void {
  const spoken: Array<{ text: string; lang: string }> = [];
  (window as unknown as { __spoken: typeof spoken }).__spoken = spoken;
  const speak = (utterance: SpeechSynthesisUtterance) =>
    void spoken.push({ text: utterance.text, lang: utterance.lang });
  if ('speechSynthesis' in window) {
    Object.defineProperty(window.speechSynthesis, 'speak', { value: speak, configurable: true });
  } else {
    Object.defineProperty(window, 'speechSynthesis', { value: { speak, getVoices: () => [] }, configurable: true });
  }
  if (!('SpeechSynthesisUtterance' in window)) {
    (window as unknown as { SpeechSynthesisUtterance: unknown }).SpeechSynthesisUtterance = class {
      lang = '';
      constructor(readonly text: string) {}
    };
  }
}

describe('the soundbox in a real browser', () => {
  // Heartbeats every second: the database check that rides on them (issue 37, section 5) shows within seconds.
  const ctx = useBrowserApp({ STATUS_WATCH_INTERVAL_MS: '100', CHECKOUT_HEARTBEAT_SECONDS: '1' });
  let amount = 20_000;

  beforeAll(async () => {
    await addMerchantUser(ctx.t.deps, [ctx.t.merchant.id], 'kasir@example.test');
    const operator: Viewer = {
      userId: 'usr_test',
      email: 'ops@example.test',
      role: 'operator',
      merchantIds: [],
      sessionKey: 'k',
      actor: { kind: 'user' as const, email: 'ops@example.test' },
    };
    await setPaymentLinkHandle(ctx.t.deps, operator, ctx.t.merchant.id, 'warung-bu-sri');
  });

  /** A payment through the API over HTTP: cqris with the test key, then simulate. */
  async function payThroughApi(): Promise<{ trxid: string; total: number }> {
    amount += 1_000;
    const headers = { 'x-api-key': ctx.t.testKey };
    const created = await fetch(`${ctx.base}${CQRIS}?amount=${amount}`, { headers });
    expect(created.status).toBe(200);
    const { data } = (await created.json()) as { data: { trxid: string; total_amount: number } };
    const simulated = await fetch(`${ctx.base}${SIMULATE}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ trxid: data.trxid }),
    });
    expect(simulated.status).toBe(200);
    return { trxid: data.trxid, total: data.total_amount };
  }

  /** A payment through the payment link: a payer opens it (a live transaction), the bank reports the total. */
  async function payThroughLink(): Promise<{ trxid: string; total: number }> {
    amount += 1_000;
    const opened = await fetch(`${ctx.base}/pay/warung-bu-sri/${amount}`, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    const trxid = /\/checkout\/(trx_[0-9A-Za-z]+)$/.exec(opened.headers.get('location') ?? '')![1]!;
    const tx = await ctx.t.deps.db
      .selectFrom('transactions')
      .select(['total_amount', 'mode'])
      .where('id', '=', trxid)
      .executeTakeFirstOrThrow();
    expect(tx.mode).toBe('live');
    const result = await recordPayment(ctx.t.deps, {
      merchantId: ctx.t.merchant.id,
      mode: 'live',
      source: 'manual',
      sourcePaymentId: `bank-${trxid}`,
      amount: tx.total_amount,
      paidAt: Date.now(),
      issuer: 'OVO',
    });
    expect(result.outcome).toBe('matched');
    return { trxid, total: tx.total_amount };
  }

  const spoken = (page: Page) => page.evaluate(() => (window as unknown as { __spoken: Spoken[] }).__spoken);
  const waitSpoken = (page: Page, n: number) =>
    page.waitForFunction((count) => (window as unknown as { __spoken: Spoken[] }).__spoken.length >= count, n, {
      timeout: 10_000,
    });
  const listed = (page: Page) =>
    page.locator('[data-list] li').evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.trxid));
  const rupiah = (n: number) => `Rp${String(n).replace(/\B(?=(\d{3})+$)/g, '.')}`;

  it('announces each payment once in Bahasa Indonesia, also after the connection is cut and restored (390x844)', async () => {
    const page = await loggedIn(ctx.browser, ctx.base, VIEWPORTS[0], 'kasir@example.test');
    await page.addInitScript(recordSpeech);
    // The console in Bahasa Indonesia, then its Soundbox section (the user's one merchant opens at once).
    await page.goto(`${ctx.base}/dashboard/lang/id?back=${encodeURIComponent('/dashboard/soundbox')}`);
    await page.getByRole('heading', { name: `Soundbox: ${ctx.t.merchant.name}` }).waitFor();
    await page.getByRole('button', { name: 'Nyalakan suara' }).click();
    await page.getByRole('status').getByText('Tersambung', { exact: false }).waitFor();

    const api = await payThroughApi();
    const link = await payThroughLink();
    await waitSpoken(page, 2);
    const first = await spoken(page);
    expect(first.map((s) => s.lang)).toEqual(['id-ID', 'id-ID']);
    for (const s of first) expect(s.text).toMatch(/^Pembayaran diterima\. .+ rupiah\.$/);
    expect(first[0]!.text.toLowerCase()).toContain('dua puluh satu ribu');
    expect(first[1]!.text.toLowerCase()).toContain('dua puluh dua ribu');
    // Only the live payment counts in the day's total; the sandbox one is shown apart.
    await expect(page.locator('[data-total]').textContent()).resolves.toBe(rupiah(link.total));
    await expect(page.locator('[data-test-total]').textContent()).resolves.toContain(rupiah(api.total));
    await page.screenshot({ path: join(SHOTS, 'soundbox-phone.png'), fullPage: true });

    // The network goes: the page says so. Payments made meanwhile are announced once it is back.
    await page.context().setOffline(true);
    await page.locator('[role=status][data-state=offline]').waitFor();
    await page.screenshot({ path: join(LOOKED_AT, 'soundbox-offline-phone.png') });
    const whileOffline = [await payThroughApi(), await payThroughLink()];
    await page.context().setOffline(false);
    await waitSpoken(page, 4);
    await page.locator('[role=status][data-state=live]').waitFor();
    // One more after the reconnect: anything said twice would have come before it, in the stream's order.
    const after = await payThroughApi();
    await waitSpoken(page, 5);
    const all = await spoken(page);
    expect(all).toHaveLength(5);
    const expectedOrder = [api, link, ...whileOffline, after];
    expect(new Set(all.map((s) => s.text)).size).toBe(5);
    await page.waitForFunction(() => document.querySelectorAll('[data-list] li').length >= 5);
    expect((await listed(page)).sort()).toEqual(expectedOrder.map((p) => p.trxid).sort());

    // A reload starts afresh: the day is listed, nothing is said again.
    await page.reload();
    await page.locator('[role=status][data-state=live]').waitFor();
    expect(await spoken(page)).toEqual([]);
    expect((await listed(page)).sort()).toEqual(expectedOrder.map((p) => p.trxid).sort());
    await page.close();
  });

  it('shows the same board on a desktop (1280x800)', async () => {
    const page = await loggedIn(ctx.browser, ctx.base, VIEWPORTS[1], 'kasir@example.test');
    await page.addInitScript(recordSpeech);
    await page.goto(`${ctx.base}/dashboard/soundbox`);
    await page.getByRole('button', { name: 'Turn the sound on' }).click();
    await page.locator('[role=status][data-state=live]').waitFor();
    const next = await payThroughLink();
    await waitSpoken(page, 1);
    const [said] = await spoken(page);
    expect(said!.lang).toBe('en-US');
    expect(said!.text).toMatch(/^Payment received\. .+ rupiah\.$/);
    expect(await listed(page)).toContain(next.trxid);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
    ).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SHOTS, 'soundbox-desktop.png'), fullPage: true });
    await page.close();
  });

  // Issue 37, section 5: the server stays up but its database does not answer. The stream's pings would go
  // on, so without the server's check the page would keep saying "Connected" while nothing can be recorded.
  const outageWords = [
    { lang: 'id', trouble: 'Server tidak dapat menjangkau databasenya', back: 'Tersambung kembali' },
    { lang: 'en', trouble: 'The server cannot reach its database', back: 'Connected again' },
  ];
  for (const [i, viewport] of VIEWPORTS.entries()) {
    const w = outageWords[i]!;
    it(`says when the server cannot reach its database and when it is back, then announces what came (${viewport.name}, ${w.lang})`, async () => {
      const outage = databaseOutage(ctx.t.deps.db);
      const page = await loggedIn(ctx.browser, ctx.base, viewport, 'kasir@example.test');
      await page.addInitScript(recordSpeech);
      await page.goto(`${ctx.base}/dashboard/lang/${w.lang}?back=${encodeURIComponent('/dashboard/soundbox')}`);
      await page.locator('[data-start]').click();
      const status = page.locator('[role=status]');
      await page.locator('[role=status][data-state=live]').waitFor();

      outage.on = true;
      await page.locator('[role=status][data-state=trouble]').waitFor({ timeout: 30_000 });
      expect(await status.textContent()).toContain(w.trouble);
      // Shown as a fault, as offline is, not in the neutral colour of "Connecting…".
      expect(await status.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(253, 236, 234)');
      await page.screenshot({ path: join(SHOTS, `soundbox-database-down-${viewport.name}.png`), fullPage: true });
      // The page's reconnects are refused while the database is down: it keeps saying why, not "reconnecting".
      await page.waitForTimeout(3_000);
      expect(await status.getAttribute('data-state')).toBe('trouble');
      expect(await spoken(page)).toEqual([]);

      // Back: the first payment recorded is announced once, and the line says the page is back.
      outage.on = false;
      const paid = await payThroughLink();
      await page.locator('[role=status][data-state=live]').waitFor({ timeout: 30_000 });
      expect(await status.textContent()).toContain(w.back);
      await waitSpoken(page, 1);
      await page.waitForTimeout(1_000);
      expect(await spoken(page)).toHaveLength(1);
      expect(await listed(page)).toContain(paid.trxid);
      await page.screenshot({ path: join(LOOKED_AT, `soundbox-database-back-${viewport.name}.png`), fullPage: true });
      await page.close();
    }, 90_000);
  }

  it('a page that reconnects while the database is down says so too, not "reconnecting" (no stream is open to tell it)', async () => {
    const outage = databaseOutage(ctx.t.deps.db);
    const page = await loggedIn(ctx.browser, ctx.base, VIEWPORTS[0], 'kasir@example.test');
    await page.goto(`${ctx.base}/dashboard/lang/en?back=${encodeURIComponent('/dashboard/soundbox')}`);
    await page.locator('[role=status][data-state=live]').waitFor();
    outage.on = true;
    // The page leaves its stream and opens another (as after the phone's network came back): refused,
    // since the database is down, before any stream could say why.
    await page.evaluate(() => window.dispatchEvent(new Event('online')));
    await page.locator('[role=status][data-state=trouble]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[role=status]').textContent()).toContain('The server cannot reach its database');
    outage.on = false;
    await page.locator('[role=status][data-state=live]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[role=status]').textContent()).toContain('Connected again');
    await page.close();
  }, 90_000);

  it('prints a paid transaction’s receipt at 58 mm from the console', async () => {
    const paid = await payThroughLink();
    const page = await loggedIn(ctx.browser, ctx.base, VIEWPORTS[0], 'kasir@example.test');
    await page.goto(`${ctx.base}/dashboard/transactions/${paid.trxid}`);
    await page.getByRole('button', { name: 'Make the receipt link' }).click();
    await page.getByText('The receipt link is ready.').waitFor();
    const href = await page.getByRole('link', { name: 'Print at 58 mm' }).getAttribute('href');
    await page.screenshot({ path: join(LOOKED_AT, 'receipt-link-phone.png'), fullPage: true });

    const receipt = await ctx.browser.newPage({ viewport: VIEWPORTS[0] });
    const { pathname, search } = new URL(href!);
    await receipt.goto(`${ctx.base}${pathname}${search}`);
    await receipt.getByText('PAID', { exact: true }).waitFor();
    await expect(receipt.locator('.total').textContent()).resolves.toContain(rupiah(paid.total));
    await receipt.screenshot({ path: join(SHOTS, 'receipt-phone.png'), fullPage: true });
    await receipt.setViewportSize(VIEWPORTS[1]);
    await receipt.screenshot({ path: join(LOOKED_AT, 'receipt-desktop.png'), fullPage: true });

    // As printed: the tools are gone, the slip is 58 mm wide.
    await receipt.emulateMedia({ media: 'print' });
    expect(await receipt.getByRole('button', { name: 'Print' }).isVisible()).toBe(false);
    const widthPx = await receipt.locator('.receipt').evaluate((el) => el.getBoundingClientRect().width);
    // 58 mm at CSS's 96 px per inch.
    expect(Math.round(widthPx)).toBe(Math.round((58 / 25.4) * 96));
    await receipt.locator('.receipt').screenshot({ path: join(SHOTS, 'receipt-58mm.png') });
    // The PDF takes the page size from the CSS: 58 mm is 164.4 pt wide.
    const pdf = await receipt.pdf({ preferCSSPageSize: true, path: join(LOOKED_AT, 'receipt-58mm.pdf') });
    const box = /\/MediaBox\s*\[\s*0 0 ([0-9.]+) ([0-9.]+)\s*\]/.exec(pdf.toString('latin1'));
    expect(Number(box![1])).toBeCloseTo((58 / 25.4) * 72, 0);
    // And as long as the slip, not a fixed 150 mm (issue 37, section 4): one page, the slip's height (in
    // points, rounded up to a whole millimetre plus one), so a roll printer feeds no blank paper after it.
    const slipPt = ((await receipt.locator('.receipt').evaluate((el) => el.getBoundingClientRect().height)) * 72) / 96;
    const heightPt = Number(box![2]);
    expect(heightPt).not.toBeCloseTo((150 / 25.4) * 72, 0);
    expect(heightPt).toBeGreaterThanOrEqual(slipPt);
    expect(heightPt).toBeLessThanOrEqual(slipPt + (3 / 25.4) * 72);
    expect(pdf.toString('latin1').match(/\/Type\s*\/Page\b/g)).toHaveLength(1);
    expect(readFileSync(join(LOOKED_AT, 'receipt-58mm.pdf')).length).toBeGreaterThan(1000);
    await receipt.close();
    await page.close();
  });
});
