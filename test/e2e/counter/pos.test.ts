// Issue 27, the point of sale's "done when": a cashier made by the CLI logs in on a phone, keys 25000 on
// the keypad, charges (a double tap makes one sale), the QR shown on screen decodes to the exact total,
// the CLI pays in another process, and within 2 seconds the page shows the paid screen and says the
// amount aloud in the page's language (speechSynthesis replaced before the page loads, recording each
// utterance). In Bahasa Indonesia and in English. Also: the manifest, and the offline shell.
import { join } from 'node:path';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseQris } from '../../../src/domain/qris/index.js';
import { launchBrowser, useBrowserApp } from '../../helpers/browser.js';
import { PASSWORD } from '../../helpers/console.js';
import { SHOTS } from '../../helpers/console-browser.js';
import { runCommand } from '../../helpers/processes.js';

const jsQR = jsQRModule.default;
const PHONE = { width: 390, height: 844 };

interface Spoken {
  text: string;
  lang: string;
  volume: number;
}

/**
 * Runs in the page before any of its scripts: speech is recorded, not played, and the device has these
 * voices. The page's first tap starts a silent blank utterance (volume 0, how a phone lets speech start
 * later); `heard` leaves those out.
 */
function recordSpeech(langs: string[]) {
  const spoken: Array<{ text: string; lang: string; volume: number }> = [];
  (window as unknown as { __spoken: typeof spoken }).__spoken = spoken;
  const synth = window.speechSynthesis;
  synth.speak = (u: SpeechSynthesisUtterance) => void spoken.push({ text: u.text, lang: u.lang, volume: u.volume });
  synth.getVoices = () =>
    langs.map((lang) => ({
      lang,
      name: `test ${lang}`,
      voiceURI: `test-${lang}`,
      default: false,
      localService: true,
    })) as SpeechSynthesisVoice[];
}

/** What the page said aloud (not its silent unlocking blanks). */
const heard = (page: Page): Promise<Spoken[]> =>
  page.evaluate(() =>
    (window as unknown as { __spoken: Spoken[] }).__spoken.filter((s) => s.volume !== 0).map((s) => ({ ...s })),
  );

describe('the point of sale in a real browser', () => {
  const ctx = useBrowserApp({ CONSOLE: 'true' });
  const cashiers: Record<string, string> = {};

  beforeAll(async () => {
    // Exactly as the contract says: the CLI, in another process, the password from ADMIN_PASSWORD.
    for (const lang of ['id', 'en']) {
      const made = await runCommand(
        [
          'user',
          'add',
          '--email',
          `kasir-${lang}@example.test`,
          '--role',
          'cashier',
          '--merchant',
          ctx.t.merchant.id,
          '--json',
        ],
        {
          DATABASE_URL: ctx.t.databaseUrl,
          ADMIN_PASSWORD: PASSWORD,
        },
      );
      expect(made.code, made.stderr).toBe(0);
      const user = JSON.parse(made.stdout) as { id: string; role: string };
      expect(user.role).toBe('cashier');
      cashiers[lang] = user.id;
    }
  }, 180_000);

  async function cashierPage(context: BrowserContext, lang: 'id' | 'en', voices: string[]): Promise<Page> {
    const page = await context.newPage();
    await page.addInitScript(recordSpeech, voices);
    await page.goto(`${ctx.base}/dashboard/lang/${lang}?back=/dashboard`);
    await page.locator('input[name="email"]').fill(`kasir-${lang}@example.test`);
    await page.locator('input[name="password"]').fill(PASSWORD);
    await page.locator('form[action="/dashboard/login"] button[type="submit"]').click();
    // A cashier's console opens on the point of sale.
    await page.waitForURL(`${ctx.base}/dashboard/pos`);
    return page;
  }

  const salesOf = async (userId: string) =>
    ctx.t.deps.db
      .selectFrom('transactions')
      .selectAll()
      .where('created_by_user_id', '=', userId)
      .orderBy('created_at')
      .execute();

  /** The QR as the screen shows it, read back from a screenshot of it. */
  async function shownQr(page: Page): Promise<string> {
    const png = PNG.sync.read(await page.locator('#pos-qr-image').screenshot());
    const found = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    expect(found, 'the QR on screen decodes').not.toBeNull();
    return found!.data;
  }

  const cases = [
    {
      lang: 'id',
      charge: 'Tagih',
      received: 'Diterima',
      newSale: 'Transaksi baru',
      speech: 'id-ID',
      words: ['dua puluh lima ribu', 'rupiah'],
    },
    {
      lang: 'en',
      charge: 'Charge',
      received: 'Received',
      newSale: 'New sale',
      speech: 'en-US',
      words: ['twenty-five thousand', 'rupiah'],
    },
  ] as const;

  for (const c of cases) {
    it(`keys 25000, charges once on a double tap, shows the exact QR, turns paid within 2 s of a CLI payment and says it aloud (${c.lang})`, async () => {
      const context = await ctx.browser.newContext({ viewport: PHONE });
      const page = await cashierPage(context, c.lang, ['id-ID', 'en-US']);
      for (const key of ['2', '5', '000']) await page.getByRole('button', { name: key, exact: true }).click();
      await expect(page.locator('#pos-display').textContent()).resolves.toBe('Rp25.000');
      // Delete and clear work, then the amount again.
      await page.getByRole('button', { name: '0', exact: true }).click();
      await expect(page.locator('#pos-display').textContent()).resolves.toBe('Rp250.000');
      await page.getByRole('button', { name: c.lang === 'id' ? 'Hapus' : 'Delete', exact: true }).click();
      await expect(page.locator('#pos-display').textContent()).resolves.toBe('Rp25.000');
      await page.getByLabel(c.lang === 'id' ? 'Catatan (opsional)' : 'Note (optional)').fill('Meja 4');
      await page.screenshot({ path: join(SHOTS, `pos-keypad-${c.lang}.png`), fullPage: true });

      await page.getByRole('button', { name: c.charge, exact: true }).dblclick();
      await page.locator('#pos-qr-image').waitFor();
      await page.waitForURL(/\/dashboard\/pos\/trx_[0-9A-Za-z]+$/);
      const sales = await salesOf(cashiers[c.lang]!);
      expect(sales).toHaveLength(1);
      const tx = sales[0]!;
      expect(tx.amount).toBe(25_000);
      expect(tx.description).toBe('Meja 4');

      // What the payer scans is the exact total; the unique code is shown plainly beside it.
      const payload = await shownQr(page);
      expect(parseQris(payload).fields.find((f) => f.tag === '54')?.value).toBe(String(tx.total_amount));
      const total = `Rp${tx.total_amount.toLocaleString('id-ID')}`;
      await expect(page.locator('#pos-total').textContent()).resolves.toBe(total);
      expect(await page.locator('.pos-unique').textContent()).toContain(String(tx.unique_code));
      expect(await page.getByText(ctx.t.merchant.name, { exact: true }).isVisible()).toBe(true);
      await page.waitForFunction(() => /^\d\d:\d\d$/.test(document.getElementById('pos-countdown')?.textContent ?? ''));
      expect(
        await page.getByRole('button', { name: c.lang === 'id' ? 'Batal' : 'Cancel', exact: true }).isVisible(),
      ).toBe(true);
      // The QR fills the phone's width.
      expect((await page.locator('#pos-qr-image').boundingBox())!.width).toBeGreaterThan(PHONE.width * 0.75);
      await page.screenshot({ path: join(SHOTS, `pos-qr-${c.lang}.png`) });

      // Paid by the CLI in another process: this process hears of it only through the status watch.
      const pay =
        tx.mode === 'test'
          ? ['pay', tx.id, '--json']
          : ['payments', 'confirm', tx.id, '--reference', `POS-E2E-${c.lang}`, '--json'];
      const paid = await runCommand(pay, { DATABASE_URL: ctx.t.databaseUrl });
      expect(paid.code, paid.stderr).toBe(0);
      await page.getByRole('heading', { name: c.received, exact: true }).waitFor({ timeout: 2000 });
      await page.waitForFunction(
        () => (window as unknown as { __spoken: Spoken[] }).__spoken.some((s) => s.volume !== 0),
        null,
        { timeout: 2000 },
      );
      const spoken = await heard(page);
      expect(spoken).toHaveLength(1);
      expect(spoken[0]!.lang).toBe(c.speech);
      for (const w of c.words) expect(spoken[0]!.text.toLowerCase()).toContain(w);
      // The first tap on the keypad started speech once, silently, so a phone lets the page speak later.
      const blanks = await page.evaluate(
        () => (window as unknown as { __spoken: Spoken[] }).__spoken.filter((s) => s.volume === 0).length,
      );
      expect(blanks).toBe(1);
      await page.screenshot({ path: join(SHOTS, `pos-paid-${c.lang}.png`) });

      // A new sale: the keypad again, with today's sale and the day's paid total.
      await page.getByRole('link', { name: c.newSale, exact: true }).click();
      await page.waitForURL(`${ctx.base}/dashboard/pos`);
      expect(await page.locator('#pos-paid-total').textContent()).toContain(total);
      expect(await page.locator('.pos-today').textContent()).toContain('Meja 4');
      await context.close();
    }, 240_000);
  }

  // A counter often has a tablet on a stand or a shop's computer: the keypad and the QR fit the screen
  // without scrolling there too, and the keys stay a sensible size instead of stretching across it.
  for (const screen of [
    { name: 'tablet', viewport: { width: 1024, height: 768 } },
    { name: 'desktop', viewport: { width: 1280, height: 800 } },
  ]) {
    it(`keypad and QR fit a ${screen.name} screen (${screen.viewport.width}x${screen.viewport.height}) without scrolling`, async () => {
      const context = await ctx.browser.newContext({ viewport: screen.viewport });
      const page = await cashierPage(context, 'id', ['id-ID']);
      const inView = async (selector: string) => {
        const box = (await page.locator(selector).first().boundingBox())!;
        expect(box, selector).not.toBeNull();
        expect(box.y + box.height, `${selector} ends inside the screen`).toBeLessThanOrEqual(screen.viewport.height);
        expect(box.x + box.width).toBeLessThanOrEqual(screen.viewport.width);
        return box;
      };
      const charge = page.getByRole('button', { name: 'Tagih', exact: true });
      const key = (await page.getByRole('button', { name: '5', exact: true }).boundingBox())!;
      // A key is a big target, not a bar across the screen.
      expect(key.width).toBeGreaterThanOrEqual(56);
      expect(key.width).toBeLessThanOrEqual(220);
      const chargeBox = (await charge.boundingBox())!;
      expect(chargeBox.y + chargeBox.height, 'Tagih without scrolling').toBeLessThanOrEqual(screen.viewport.height);
      await page.screenshot({ path: join(SHOTS, `pos-keypad-${screen.name}.png`) });

      for (const k of ['3', '5', '000']) await page.getByRole('button', { name: k, exact: true }).click();
      await charge.click();
      await page.locator('#pos-qr-image').waitFor();
      await page.waitForURL(/\/dashboard\/pos\/trx_/);
      const qr = await inView('#pos-qr-image');
      // Big enough to scan from across a counter, and whole on the screen with the total, the countdown
      // and Batal beside it.
      expect(qr.width).toBeGreaterThanOrEqual(280);
      await inView('#pos-total');
      await inView('.pos-countdown');
      await inView('.pos-cancel');
      const tx = (await salesOf(cashiers.id!)).at(-1)!;
      expect(tx.amount).toBe(35_000);
      expect(parseQris(await shownQr(page)).fields.find((f) => f.tag === '54')?.value).toBe(String(tx.total_amount));
      await page.screenshot({ path: join(SHOTS, `pos-qr-${screen.name}.png`) });
      await context.close();
    }, 120_000);
  }

  // A phone lets a page make sound only after a tap on it. The charge is that tap; a reload of the QR
  // screen has none, so the page shows a button that turns both the chime and the speech on. Chromium is
  // started with a phone's autoplay policy (no sound before the user touches the page).
  it('after a reload of the QR screen, "Ketuk untuk mengaktifkan suara" turns the sound on, and the payment is said', async () => {
    const strict = await launchBrowser(['--autoplay-policy=document-user-activation-required']);
    try {
      const context = await strict.newContext({ viewport: PHONE });
      const page = await cashierPage(context, 'id', ['id-ID']);
      for (const key of ['2', '0', '000']) await page.getByRole('button', { name: key, exact: true }).click();
      await page.getByRole('button', { name: 'Tagih', exact: true }).click();
      await page.locator('#pos-qr-image').waitFor();
      await page.waitForURL(/\/dashboard\/pos\/trx_/);
      const sound = page.getByRole('button', { name: 'Ketuk untuk mengaktifkan suara', exact: true });
      // Charged by a tap here: the sound is on already, no button.
      await page.waitForFunction(
        () => (document.getElementById('pos-sound') as HTMLButtonElement | null)?.hidden === true,
      );

      await page.reload();
      await sound.waitFor();
      expect(await heard(page)).toEqual([]);
      await page.screenshot({ path: join(SHOTS, 'pos-sound-id.png') });
      await sound.click();
      await sound.waitFor({ state: 'hidden' });
      // The tap says so aloud, in the page's language: the cashier hears that sound works.
      expect(await heard(page)).toEqual([{ text: 'Suara aktif.', lang: 'id-ID', volume: 1 }]);

      const tx = (await salesOf(cashiers.id!)).at(-1)!;
      expect(tx.amount).toBe(20_000);
      const paid = await runCommand(
        tx.mode === 'test' ? ['pay', tx.id] : ['payments', 'confirm', tx.id, '--reference', 'POS-E2E-SOUND'],
        {
          DATABASE_URL: ctx.t.databaseUrl,
        },
      );
      expect(paid.code, paid.stderr).toBe(0);
      await page.getByRole('heading', { name: 'Diterima', exact: true }).waitFor({ timeout: 2000 });
      await page.waitForFunction(
        () => (window as unknown as { __spoken: Spoken[] }).__spoken.filter((s) => s.volume !== 0).length === 2,
        null,
        {
          timeout: 2000,
        },
      );
      const said = await heard(page);
      expect(said[1]!.lang).toBe('id-ID');
      expect(said[1]!.text.toLowerCase()).toContain('dua puluh ribu');
      await context.close();
    } finally {
      await strict.close();
    }
  }, 240_000);

  it('a form sent twice is one sale; the audit log names the cashier', async () => {
    const context = await ctx.browser.newContext({ viewport: PHONE });
    const page = await cashierPage(context, 'id', ['id-ID']);
    const before = (await salesOf(cashiers.id!)).length;
    // The same form (one key) posted twice, as a resent form or a second tap without the script would.
    const answers = await page.evaluate(async () => {
      const form = document.getElementById('pos-sale') as HTMLFormElement;
      (form.querySelector('#pos-amount') as HTMLInputElement).value = '12000';
      const data = new FormData(form);
      const one = await fetch(form.action, { method: 'POST', body: data });
      const two = await fetch(form.action, { method: 'POST', body: data });
      return [one.url, two.url];
    });
    expect(answers[0]).toMatch(/\/dashboard\/pos\/trx_/);
    expect(answers[1]).toBe(answers[0]);
    const sales = await salesOf(cashiers.id!);
    expect(sales).toHaveLength(before + 1);
    const audit = await ctx.t.deps.db
      .selectFrom('audit_log')
      .selectAll()
      .where('subject_id', '=', sales.at(-1)!.id)
      .execute();
    expect(audit.map((a) => [a.actor, a.action])).toEqual([['user:kasir-id@example.test', 'transaction.sale']]);
    await context.close();
  });

  it('says nothing without a voice for the language, and is installable with an offline shell', async () => {
    const context = await ctx.browser.newContext({ viewport: PHONE });
    const page = await cashierPage(context, 'id', ['en-US']);
    const manifest = await page.evaluate(async () => {
      const href = document.querySelector<HTMLLinkElement>('link[rel="manifest"]')!.href;
      return (await fetch(href)).json();
    });
    expect(manifest).toMatchObject({ start_url: '/dashboard/pos', display: 'standalone', name: 'Kasir qris-gateway' });
    for (const icon of manifest.icons as Array<{ src: string; sizes: string }>) {
      const ok = await page.evaluate(async (src) => (await fetch(src)).headers.get('content-type'), icon.src);
      expect(ok, icon.src).toBe('image/png');
    }

    // A sale paid while no Indonesian voice exists: the paid screen, and no speech (the chime only).
    for (const key of ['1', '5', '000']) await page.getByRole('button', { name: key, exact: true }).click();
    await page.getByRole('button', { name: 'Tagih', exact: true }).click();
    await page.locator('#pos-qr-image').waitFor();
    const tx = (await salesOf(cashiers.id!)).at(-1)!;
    const paid = await runCommand(
      tx.mode === 'test' ? ['pay', tx.id] : ['payments', 'confirm', tx.id, '--reference', 'POS-E2E-NOVOICE'],
      {
        DATABASE_URL: ctx.t.databaseUrl,
      },
    );
    expect(paid.code, paid.stderr).toBe(0);
    await page.getByRole('heading', { name: 'Diterima', exact: true }).waitFor({ timeout: 2000 });
    await page.waitForTimeout(1800);
    expect(await heard(page)).toEqual([]);

    // Offline: the service worker answers the point of sale with its shell, which says so.
    await page.goto(`${ctx.base}/dashboard/pos`);
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await page.reload();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await context.setOffline(true);
    await page.reload();
    await page.getByRole('heading', { name: /Luring/ }).waitFor();
    expect(await page.getByRole('status').first().textContent()).toContain('Menagih memerlukan jaringan');
    await page.screenshot({ path: join(SHOTS, 'pos-offline-id.png') });
    await context.setOffline(false);
    await context.close();
  }, 240_000);
});
