// The pure parts of merchants' alerts: each channel's message in both languages, what a channel accepts
// when it is added, how its secret is shown, and the retry schedule.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskSecret, parseNotifyChannel } from '../../src/domain/notify-channel.js';
import { readAlertFacts, type AlertFacts } from '../../src/domain/notify-facts.js';
import { NOTIFY_MAX_ATTEMPTS, NOTIFY_RETRY_DELAYS_MS, notifyRetryDelayMs } from '../../src/domain/notify-retry.js';
import { parseNetworkList } from '../../src/domain/ip-networks.js';
import {
  alertEmail,
  DISCORD_CONTENT_LIMIT,
  discordContent,
  TELEGRAM_TEXT_LIMIT,
  telegramText,
} from '../../src/presentation/notify-messages.js';
import { alertFactsOfEvent } from '../../src/services/notify/alert-of-event.js';

// 2026-11-26 10:03:57 UTC is 17:03:57 WIB.
const PAID_AT = Date.UTC(2026, 10, 26, 10, 3, 57);
const TOKEN = '7012345678:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw-x';

const received: AlertFacts = {
  kind: 'payment_received',
  merchantName: 'Warung Bu Sri',
  mode: 'live',
  trxid: 'trx_abc',
  amount: 25_123,
  ref: 'meja-7',
  description: 'Es teh 2',
  payerName: 'Budi Santoso',
  issuer: 'GoPay',
  paidAt: PAID_AT,
};

describe('Telegram', () => {
  it('says a payment was received in Bahasa Indonesia, with the amount, ref, note, payer, issuer and WIB time', () => {
    expect(telegramText(received, 'id')).toBe(
      [
        'Pembayaran diterima: Rp25.123',
        '',
        'Merchant: Warung Bu Sri',
        'Ref: meja-7',
        'Catatan: Es teh 2',
        'Pembayar: Budi Santoso',
        'Dibayar dengan: GoPay',
        'Waktu: 26 Nov 2026, 17.03.57 WIB',
        'Transaksi: trx_abc',
      ].join('\n'),
    );
  });

  it('in English when the channel is, and leaves out what is not known', () => {
    const text = telegramText({ ...received, ref: null, description: null, payerName: null, issuer: null }, 'en');
    expect(text).toBe(
      [
        'Payment received: Rp25.123',
        '',
        'Merchant: Warung Bu Sri',
        'Time: 26 Nov 2026, 17:03:57 WIB',
        'Transaction: trx_abc',
      ].join('\n'),
    );
  });

  it('tags a sandbox payment, and says an unmatched payment with its reason', () => {
    expect(telegramText({ ...received, mode: 'test' }, 'id').split('\n')[0]).toBe(
      '[Sandbox] Pembayaran diterima: Rp25.123',
    );
    const text = telegramText(
      {
        kind: 'payment_unmatched',
        merchantName: 'Warung Bu Sri',
        mode: 'live',
        paymentId: 'pay_1',
        amount: 77_777,
        reference: 'BCA-1',
        payerName: null,
        issuer: 'DANA',
        reason: 'no_matching_transaction',
        paidAt: PAID_AT,
      },
      'id',
    );
    expect(text.split('\n')[0]).toBe('Pembayaran tidak cocok: Rp77.777');
    expect(text).toContain('Referensi pembayaran: BCA-1');
    expect(text).toContain('Alasan: ');
    expect(text).not.toContain('Alasan: no_matching_transaction');
  });

  it('is plain text kept within Telegram’s limit, whatever a payer typed', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 6000 }), (ref) => {
        const text = telegramText({ ...received, ref }, 'id');
        expect(text.length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
        expect(text.startsWith('Pembayaran diterima: Rp25.123')).toBe(true);
      }),
    );
  });
});

describe('Discord', () => {
  it('puts the title in bold and escapes markdown in what a payer typed', () => {
    const content = discordContent({ ...received, ref: '**@everyone** _x_', payerName: null }, 'id');
    expect(content.split('\n')[0]).toBe('**Pembayaran diterima: Rp25.123**');
    expect(content).toContain('Ref: \\*\\*\\@everyone\\*\\* \\_x\\_');
    expect(content).not.toMatch(/(^|[^\\])@everyone/);
  });

  it('stays within Discord’s 2000 characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 5000 }), (description) => {
        expect(discordContent({ ...received, description }, 'en').length).toBeLessThanOrEqual(DISCORD_CONTENT_LIMIT);
      }),
    );
  });
});

describe('e-mail', () => {
  it('has the title as its subject and escapes the HTML part', () => {
    const mail = alertEmail({ ...received, payerName: '<script>x</script>' }, 'id');
    expect(mail.subject).toBe('qris-gateway: Pembayaran diterima: Rp25.123');
    expect(mail.text).toContain('Pembayar: <script>x</script>');
    expect(mail.html).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(mail.html).not.toContain('<script>');
  });

  it('says a webhook keeps failing, and what a test is', () => {
    const failing = alertEmail(
      {
        kind: 'webhook_failing',
        merchantName: 'W',
        endpointId: 'we_1',
        url: 'https://shop.example/hook',
        failures: 20,
        at: PAID_AT,
      },
      'en',
    );
    expect(failing.subject).toBe('qris-gateway: Webhook keeps failing');
    expect(failing.text).toContain('https://shop.example/hook has failed 20 times in a row');
    expect(telegramText({ kind: 'test', merchantName: 'Warung Bu Sri', at: PAID_AT }, 'id')).toContain(
      'Notifikasi qris-gateway untuk Warung Bu Sri sampai ke saluran ini.',
    );
  });
});

describe('what an event tells', () => {
  it('a paid transaction: the amount paid, its ref, payer, issuer and time; an expiry nothing', () => {
    const data = {
      trxid: 'trx_1',
      mode: 'test',
      total_amount: 10_123,
      ref: 'r1',
      paid_at: new Date(PAID_AT).toISOString(),
      payment: { amount: 10_123, payer_name: 'Ani', issuer: 'OVO', paid_at: new Date(PAID_AT).toISOString() },
    };
    expect(alertFactsOfEvent({ id: 'evt_1', merchantId: 'mch_1', type: 'transaction.paid', data, now: 0 })).toEqual({
      kind: 'payment_received',
      mode: 'test',
      trxid: 'trx_1',
      amount: 10_123,
      ref: 'r1',
      description: null,
      payerName: 'Ani',
      issuer: 'OVO',
      paidAt: PAID_AT,
    });
    expect(
      alertFactsOfEvent({ id: 'evt_2', merchantId: 'mch_1', type: 'transaction.expired', data, now: 0 }),
    ).toBeNull();
  });

  it('stored facts read back; a row changed by hand reads as nothing', () => {
    expect(readAlertFacts(JSON.stringify(received))).toEqual(received);
    expect(readAlertFacts('{"kind":"other","merchantName":"x"}')).toBeNull();
    expect(readAlertFacts('not json')).toBeNull();
  });
});

describe('adding a channel', () => {
  const none = parseNetworkList('');
  it('takes a Telegram token and chat id, Bahasa Indonesia unless told', () => {
    expect(parseNotifyChannel({ type: 'telegram', botToken: ` ${TOKEN} `, chatId: '-1001234567890' }, none)).toEqual({
      type: 'telegram',
      language: 'id',
      secret: TOKEN,
      chatId: '-1001234567890',
    });
    expect(
      parseNotifyChannel({ type: 'telegram', botToken: TOKEN, chatId: '@warung_bu_sri', language: 'en' }, none)
        .language,
    ).toBe('en');
  });

  it('refuses a malformed token or chat id, another type’s fields, an unknown type or language', () => {
    const refused = (input: Parameters<typeof parseNotifyChannel>[0]) => {
      try {
        parseNotifyChannel(input, none);
      } catch (err) {
        return (err as { code: string; param: string }).param;
      }
      return 'accepted';
    };
    expect(refused({ type: 'telegram', botToken: 'abc', chatId: '1' })).toBe('bot_token');
    expect(refused({ type: 'telegram', botToken: `${TOKEN}\n`.replace('\n', ' x'), chatId: '1' })).toBe('bot_token');
    expect(refused({ type: 'telegram', botToken: TOKEN, chatId: 'me' })).toBe('chat_id');
    expect(refused({ type: 'discord', url: 'https://discord.com/api/webhooks/1/x', botToken: TOKEN })).toBe(
      'bot_token',
    );
    expect(refused({ type: 'email', url: 'https://x.example' })).toBe('url');
    expect(refused({ type: 'sms' })).toBe('type');
    expect(refused({ type: 'email', language: 'fr' })).toBe('language');
    expect(refused({ type: 'email' })).toBe('accepted');
  });

  it('holds a Discord URL to the private-address guard unless the network is allowed', () => {
    expect(() => parseNotifyChannel({ type: 'discord', url: 'http://127.0.0.1:8080/api/webhooks/1/x' }, none)).toThrow(
      /WEBHOOK_ALLOW_NETWORKS/,
    );
    expect(
      parseNotifyChannel(
        { type: 'discord', url: 'http://127.0.0.1:8080/api/webhooks/1/x' },
        parseNetworkList('127.0.0.0/8'),
      ).secret,
    ).toBe('http://127.0.0.1:8080/api/webhooks/1/x');
    expect(() =>
      parseNotifyChannel({ type: 'discord', url: 'https://user:pw@discord.com/api/webhooks/1/x' }, none),
    ).toThrow(/user name or password/);
  });

  it('shows a secret masked: enough to tell two apart, never enough to use', () => {
    expect(maskSecret('telegram', TOKEN)).toBe('7012345678:••••aw-x');
    const url = 'https://discord.com/api/webhooks/1122/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    expect(maskSecret('discord', url)).toBe('https://discord.com/••••6789');
    expect(maskSecret('email', null)).toBe('');
  });
});

describe('retries', () => {
  it('follow the schedule, then stop; a longer wait asked for is honoured up to its cap', () => {
    const mid = 0.5; // no jitter
    expect(NOTIFY_RETRY_DELAYS_MS.map((_, i) => notifyRetryDelayMs(i + 1, null, mid))).toEqual([
      ...NOTIFY_RETRY_DELAYS_MS,
    ]);
    expect(notifyRetryDelayMs(NOTIFY_MAX_ATTEMPTS, null, mid)).toBeNull();
    expect(notifyRetryDelayMs(1, 300_000, mid)).toBe(300_000);
    expect(notifyRetryDelayMs(1, 1_000, mid)).toBe(15_000);
    expect(notifyRetryDelayMs(1, 30 * 86_400_000, mid)).toBe(6 * 3600_000);
  });

  it('jitter stays within ±20%', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: NOTIFY_RETRY_DELAYS_MS.length }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        (n, r) => {
          const nominal = NOTIFY_RETRY_DELAYS_MS[n - 1]!;
          const delay = notifyRetryDelayMs(n, null, r)!;
          expect(delay).toBeGreaterThanOrEqual(Math.floor(nominal * 0.8));
          expect(delay).toBeLessThanOrEqual(Math.ceil(nominal * 1.2));
        },
      ),
    );
  });
});
