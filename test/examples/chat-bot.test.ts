// examples/chat-bot against a real gateway process. The chat platform lives outside this machine, so
// the bot talks to a recording Chat; everything behind the bot (the client, the gateway, its stream) is real.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { QrisGatewayClient } from '@qris-gateway/client';
import { createBot, type Chat } from '../../examples/chat-bot/bot.js';
import { startSeededGateway, type SeededGateway } from '../helpers/seeded-gateway.js';
import { parseTlv } from '../../src/domain/qris/tlv.js';

const jsQR = jsQRModule.default;

type Sent = { chatId: string; text: string; png?: Uint8Array };

class RecordingChat implements Chat {
  readonly sent: Sent[] = [];
  async sendText(chatId: string, text: string) {
    this.sent.push({ chatId, text });
  }
  async sendPhoto(chatId: string, png: Uint8Array, caption: string) {
    this.sent.push({ chatId, text: caption, png });
  }
  of(chatId: string): Sent[] {
    return this.sent.filter((s) => s.chatId === chatId);
  }
  async next(chatId: string, count: number, ms = 15_000): Promise<Sent[]> {
    const deadline = Date.now() + ms;
    while (this.of(chatId).length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return this.of(chatId);
  }
}

let gateway: SeededGateway;
let client: QrisGatewayClient;
let chat: RecordingChat;
let bot: ReturnType<typeof createBot>;

beforeAll(async () => {
  gateway = await startSeededGateway();
  client = new QrisGatewayClient({ baseUrl: gateway.url, apiKey: gateway.testKey });
  chat = new RecordingChat();
  bot = createBot(client, chat);
}, 180_000);

afterAll(async () => {
  await gateway?.stop();
});

/** The transaction a photo's QR code is for, found by its total among the latest ones. */
async function transactionOfPhoto(png: Uint8Array) {
  const image = PNG.sync.read(Buffer.from(png));
  const payload = jsQR(new Uint8ClampedArray(image.data), image.width, image.height)!.data;
  const total = Number(parseTlv(payload).find((f) => f.tag === '54')!.value);
  for await (const tx of client.listTransactions({ status: 'pending' })) if (tx.qris === payload) return { tx, total };
  throw new Error('no pending transaction has this QR code');
}

describe('the chat-bot example', () => {
  it('"bayar 25000" sends the QR as a photo, and replies once the payment arrives', async () => {
    await bot.handle('chat-1', 'bayar 25000');
    const [photo] = chat.of('chat-1');
    expect(photo!.png).toBeDefined();
    const { tx, total } = await transactionOfPhoto(photo!.png!);
    expect(total).toBe(tx.total_amount);
    expect(photo!.text).toContain(`Rp${tx.total_amount.toLocaleString('id-ID')}`);

    await client.simulatePayment(tx.trxid);
    const messages = await chat.next('chat-1', 2);
    expect(messages[1]!.text).toBe(`Pembayaran Rp${tx.total_amount.toLocaleString('id-ID')} diterima. Terima kasih!`);
  });

  it('"batal" cancels the open payment on the gateway and says so', async () => {
    await bot.handle('chat-2', 'bayar 10000');
    const { tx } = await transactionOfPhoto(chat.of('chat-2')[0]!.png!);
    await bot.handle('chat-2', 'batal');
    const messages = await chat.next('chat-2', 2);
    expect(messages[1]!.text).toBe('Pembayaran dibatalkan.');
    expect((await client.getStatus(tx.trxid)).status).toBe('cancelled');
    // Nothing is open any more.
    await bot.handle('chat-2', 'batal');
    expect(chat.of('chat-2')[2]!.text).toBe('Tidak ada pembayaran yang bisa dibatalkan.');
  });

  it('keeps one open payment per chat, and explains what it understands', async () => {
    await bot.handle('chat-3', 'bayar 12000');
    await bot.handle('chat-3', 'bayar 13000');
    expect(chat.of('chat-3')[1]!.text).toContain('Masih ada pembayaran');
    await bot.handle('chat-3', 'halo');
    expect(chat.of('chat-3')[2]!.text).toContain('bayar <jumlah>');
    await bot.handle('chat-3', 'batal');
    expect((await chat.next('chat-3', 4))[3]!.text).toBe('Pembayaran dibatalkan.');
    // An amount the gateway refuses is answered with its error code, and opens nothing.
    await bot.handle('chat-4', 'bayar 999999999');
    expect(chat.of('chat-4')[0]!.text).toContain('amount_out_of_range');
    await bot.handle('chat-4', 'batal');
    expect(chat.of('chat-4')[1]!.text).toBe('Tidak ada pembayaran yang bisa dibatalkan.');
  });
});
