// The console's notifications in a real Chromium, at a phone's size and a desktop's: a merchant's owner
// adds a Telegram channel by the form's labels, presses Send test, and sees the alert delivered in the
// channel's list with its attempt; a payment then shows up there too. The Telegram Bot API is the local
// server of the alert tests.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { dispatchDueAlerts } from '../../../src/alerts/dispatch.js';
import { useBrowserApp } from '../../helpers/browser.js';
import { BOT_TOKEN, TelegramServer } from '../../helpers/chat-services.js';
import { addMerchantUser } from '../../helpers/console.js';
import { loggedIn, openSection, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { createInput } from '../../helpers/context.js';

const telegram = await TelegramServer.start();
telegram.tokens.add(BOT_TOKEN);

describe('console notifications in a real browser', () => {
  const ctx = useBrowserApp({ WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8', TELEGRAM_API_URL: telegram.url });

  beforeAll(async () => {
    await addMerchantUser(ctx.t.deps, [ctx.t.merchant.id], 'owner@warung.test');
  });
  afterAll(async () => telegram.close());

  const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  for (const size of VIEWPORTS) {
    it(`at ${size.name} size: adds a Telegram channel, Send test delivers, the alert is listed`, async () => {
      const { t } = ctx;
      const chatId = size.name === 'phone' ? '390844' : '1280800';
      const page = await loggedIn(ctx.browser, ctx.base, size, 'owner@warung.test');
      try {
        await openSection(page, 'Notifications');
        await page.getByRole('heading', { level: 1, name: 'Notifications' }).waitFor();
        const region = page.getByRole('region', { name: 'Connect Telegram' });
        expect(
          await region
            .getByText(/Talk to @BotFather/)
            .first()
            .isVisible(),
        ).toBe(true);
        // Entering a chat ID by hand is still there, folded under the connect form.
        await region.getByText('Or enter the chat ID yourself').click();
        const form = region.locator('details');
        expect(
          await page
            .getByRole('region', { name: 'Add Discord' })
            .getByText(/Integrations, then Webhooks/)
            .isVisible(),
        ).toBe(true);
        await form.getByLabel('Bot token').fill(BOT_TOKEN);
        await form.getByLabel('Chat ID').fill(chatId);
        await form.getByRole('button', { name: 'Add Telegram' }).click();

        await page.getByRole('status').getByText('Channel added. Try it with Send test.').waitFor();
        expect(await page.content()).not.toContain(BOT_TOKEN);
        expect(await page.getByText(`7012345678:••••${BOT_TOKEN.slice(-4)} · chat ${chatId}`).isVisible()).toBe(true);

        await page.getByRole('button', { name: 'Send test' }).click();
        await page.getByRole('status').getByText('Test alert delivered.').waitFor();
        const sent = telegram.delivered.filter((m) => m.chatId === chatId);
        expect(sent).toHaveLength(1);
        expect(sent[0]!.text).toContain('Uji notifikasi');
        const test = page.getByRole('region', { name: /^Test/ });
        expect(await test.getByText('delivered', { exact: true }).isVisible()).toBe(true);
        expect(await test.getByText('HTTP 200').isVisible()).toBe(true);

        // A payment: its alert goes out with the dispatcher's next pass and is listed above the test.
        const tx = (
          await createTransaction(t.deps, createInput(t.merchant.id, size.name === 'phone' ? 25_000 : 40_000))
        ).transaction;
        await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, tx.id);
        await dispatchDueAlerts(t.deps, { mail: null });
        await page.reload();
        const payment = page.getByRole('region', { name: /^Payment received/ });
        expect(await payment.getByText('HTTP 200').isVisible()).toBe(true);
        expect(telegram.delivered.filter((m) => m.chatId === chatId).at(-1)!.text).toContain('Pembayaran diterima');

        expect(await fitsWidth(page)).toBe(true);
        await page.screenshot({ path: join(SHOTS, `notifications-${size.name}.png`), fullPage: true });
        await openSection(page, 'Notifications');
        await page.getByRole('heading', { level: 1, name: 'Notifications' }).waitFor();
        expect(await fitsWidth(page)).toBe(true);
        await page.screenshot({ path: join(SHOTS, `notifications-list-${size.name}.png`), fullPage: true });
      } finally {
        await page.close();
      }
    });

    it(`at ${size.name} size: Connect shows the bot's link, and the page finds the chat once Start is pressed`, async () => {
      const chatId = size.name === 'phone' ? 61001 : 61002;
      const page = await loggedIn(ctx.browser, ctx.base, size, 'owner@warung.test');
      try {
        await openSection(page, 'Notifications');
        const region = page.getByRole('region', { name: 'Connect Telegram' });
        await region.getByLabel('Language').first().selectOption('en');
        await region.getByLabel('Bot token').first().fill(BOT_TOKEN);
        await region.getByRole('button', { name: 'Connect' }).click();

        await page.getByRole('heading', { level: 1, name: 'Connect @gateway_test_bot' }).waitFor();
        const link = page.getByRole('link', { name: 'Open @gateway_test_bot in Telegram' });
        const href = (await link.getAttribute('href'))!;
        expect(href).toMatch(/^https:\/\/t\.me\/gateway_test_bot\?start=[A-Za-z0-9_-]{16,64}$/);
        expect(await link.isVisible()).toBe(true);
        await page.getByRole('status').getByText('Looking for your Start in Telegram…').waitFor();
        expect(await fitsWidth(page)).toBe(true);
        await page.screenshot({ path: join(SHOTS, `notifications-connect-${size.name}.png`), fullPage: true });

        // The owner presses Start in Telegram; the page, polling, finds the chat by itself.
        telegram.message(BOT_TOKEN, chatId, `/start ${new URL(href).searchParams.get('start')}`);
        await page.getByText('Connected to the chat. Try it with Send test.').waitFor({ timeout: 15_000 });
        expect(page.url()).toMatch(/\/dashboard\/notifications\/nch_/);
        expect(await page.getByText(`chat ${chatId}`).isVisible()).toBe(true);
      } finally {
        await page.close();
      }
    });

    it(`at ${size.name} size, in Bahasa Indonesia: a wrong bot token is explained in the page's language (issue 37, section 7)`, async () => {
      const page = await loggedIn(ctx.browser, ctx.base, size, 'owner@warung.test');
      try {
        await page.goto(`${ctx.base}/dashboard/lang/id?back=${encodeURIComponent('/dashboard/notifications')}`);
        await page.getByRole('heading', { level: 1, name: 'Notifikasi' }).waitFor();
        const region = page.getByRole('region', { name: 'Hubungkan Telegram' });
        await region.getByLabel('Token bot').first().fill('7012345678:AAwrongwrongwrongwrongwrongwrong');
        await region.getByRole('button', { name: 'Hubungkan' }).click();
        const notice = page.getByRole('alert').or(page.getByRole('status'));
        await notice
          .getByText('Telegram tidak dapat digunakan: token bot salah: salin lagi dari @BotFather', { exact: false })
          .waitFor();
        expect(await page.getByText('the bot token is wrong').count()).toBe(0);
        expect(await fitsWidth(page)).toBe(true);
        await page.screenshot({ path: join(SHOTS, `notifications-wrong-token-id-${size.name}.png`), fullPage: true });
      } finally {
        await page.close();
      }
    });
  }
});
