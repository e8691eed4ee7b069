// A chat bot that takes QRIS payments: "bayar 25000" sends the QR code as a photo, the bot waits for the
// payment on the gateway's live status (no polling loop of its own) and replies when it is paid,
// expired or cancelled; "batal" cancels. The chat platform (Telegram, WhatsApp, ...) is behind `Chat`.
// Run as a program (`npx tsx examples/chat-bot/bot.ts`), it chats in the terminal (terminal.ts).
import { fileURLToPath } from 'node:url';
import { QrisGatewayClient, QrisGatewayError, type Transaction } from '@qris-gateway/client';

/** What the bot needs of a chat platform: plug in its send-message and send-photo calls. */
export interface Chat {
  sendText(chatId: string, text: string): Promise<void>;
  sendPhoto(chatId: string, png: Uint8Array, caption: string): Promise<void>;
}

const rupiah = (n: number) => `Rp${n.toLocaleString('id-ID')}`;
const HELP = 'Kirim "bayar <jumlah>", misalnya "bayar 25000". Kirim "batal" untuk membatalkan.';

export function createBot(client: QrisGatewayClient, chat: Chat) {
  // One open payment per chat. In production keep the trxid in your database, so a restart can resume
  // the wait with client.waitForPayment(trxid).
  const open = new Map<string, string>();

  async function pay(chatId: string, amount: number): Promise<void> {
    if (open.has(chatId)) return chat.sendText(chatId, 'Masih ada pembayaran yang belum selesai. Kirim "batal" dulu.');
    let tx: Transaction;
    try {
      tx = await client.createQris({ amount, ref: `${chatId}-${Date.now()}` });
    } catch (err) {
      if (err instanceof QrisGatewayError && err.status === 400)
        return chat.sendText(chatId, `Jumlah tidak bisa dipakai (${err.code}). ${HELP}`);
      throw err;
    }
    open.set(chatId, tx.trxid);
    const until = new Date(tx.expires_at).toLocaleTimeString('id-ID', {
      timeZone: 'Asia/Jakarta',
      hour: '2-digit',
      minute: '2-digit',
    });
    // The link too: a payer chatting on the phone they pay with cannot scan its own screen.
    const caption = `Scan untuk membayar tepat ${rupiah(tx.total_amount)} sebelum ${until} WIB, atau buka ${tx.checkout_url}`;
    await chat.sendPhoto(chatId, await client.qrPng(tx.trxid), caption);
    // Not awaited: the bot keeps answering other messages while this payment is open.
    void client
      .waitForPayment(tx.trxid)
      .then((done) => {
        open.delete(chatId);
        const replies: Record<Transaction['status'], string> = {
          paid: `Pembayaran ${rupiah(done.total_amount)} diterima. Terima kasih!`,
          expired: 'Waktu pembayaran habis. Kirim "bayar <jumlah>" untuk kode baru.',
          cancelled: 'Pembayaran dibatalkan.',
          pending: 'Masih menunggu pembayaran.', // never: the wait ends only on a final status
        };
        return chat.sendText(chatId, replies[done.status]);
      })
      .catch(() => {
        open.delete(chatId);
        return chat.sendText(chatId, 'Status pembayaran tidak bisa dicek. Coba lagi nanti.');
      });
  }

  async function cancel(chatId: string): Promise<void> {
    const trxid = open.get(chatId);
    if (trxid === undefined) return chat.sendText(chatId, 'Tidak ada pembayaran yang bisa dibatalkan.');
    try {
      // The wait above sees the cancel and replies.
      await client.cancel(trxid);
    } catch (err) {
      // Paid (or expired) just before: the wait replies with that instead.
      if (!(err instanceof QrisGatewayError && err.status === 409)) throw err;
    }
  }

  return {
    /** Handles one incoming message. */
    async handle(chatId: string, text: string): Promise<void> {
      const words = text.trim().toLowerCase().split(/\s+/);
      if (words[0] === 'batal') return cancel(chatId);
      if (words[0] === 'bayar' && /^\d{1,9}$/.test(words[1] ?? '')) return pay(chatId, Number(words[1]));
      return chat.sendText(chatId, HELP);
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const baseUrl = process.env.QRIS_GATEWAY_URL ?? 'http://127.0.0.1:3000';
  const apiKey = process.env.QRIS_API_KEY;
  if (!apiKey) {
    console.error(
      'Set QRIS_API_KEY to a key of the gateway (sk_test_... for the sandbox), and QRIS_GATEWAY_URL if it is not http://127.0.0.1:3000.',
    );
    process.exit(1);
  }
  const { chatInTerminal } = await import('./terminal.js');
  console.log(`chat bot on ${baseUrl}`);
  await chatInTerminal((chat) => createBot(new QrisGatewayClient({ baseUrl, apiKey }), chat));
  // An open payment's wait holds a connection to the gateway: leaving the chat ends it too.
  process.exit(0);
}
