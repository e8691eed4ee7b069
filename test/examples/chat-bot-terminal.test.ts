// examples/chat-bot run as docs/client.md says (`npx tsx examples/chat-bot/bot.ts`), chatted with through its
// stdin and stdout, against a real gateway process: "bayar 25000" answers with the QR (a PNG file) and
// the checkout link, the payment made through the API's simulate is answered "diterima", "exit" ends it.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QrisGatewayClient } from '@qris-gateway/client';
import { parseTlv } from '../../src/domain/qris/tlv.js';
import { startSeededGateway, type SeededGateway } from '../helpers/seeded-gateway.js';
import { childEnv, root } from '../helpers/processes.js';

const jsQR = jsQRModule.default;

/** The bot as a process of its own group (npx starts tsx, which starts node), and its output so far. */
class BotProcess {
  readonly child: ChildProcess;
  private out = '';
  private err = '';
  readonly exited: Promise<number | null>;

  constructor(env: Record<string, string>) {
    this.child = spawn('npx', ['tsx', 'examples/chat-bot/bot.ts'], {
      cwd: root,
      env: childEnv({ npm_config_offline: 'true', npm_config_update_notifier: 'false', ...env }),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.child.stdout!.setEncoding('utf8').on('data', (c: string) => (this.out += c));
    this.child.stderr!.setEncoding('utf8').on('data', (c: string) => (this.err += c));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  lines(): string[] {
    return this.out.split('\n').filter((l) => l !== '');
  }

  type(text: string) {
    this.child.stdin!.write(`${text}\n`);
  }

  /** The first line from `from` on that matches, or an error naming what was printed instead. */
  async line(match: RegExp, from = 0, ms = 30_000): Promise<{ text: string; index: number }> {
    const deadline = Date.now() + ms;
    for (;;) {
      const index = this.lines().findIndex((l, i) => i >= from && match.test(l));
      if (index >= 0) return { text: this.lines()[index]!, index };
      if (Date.now() > deadline)
        throw new Error(`no line matched ${match} in ${ms} ms\nstdout:\n${this.out}\nstderr:\n${this.err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  stderr(): string {
    return this.err;
  }

  kill() {
    if (this.child.exitCode === null && this.child.pid) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

let gateway: SeededGateway;
const bots: BotProcess[] = [];

beforeAll(async () => {
  gateway = await startSeededGateway();
}, 180_000);

afterAll(async () => {
  for (const bot of bots) bot.kill();
  await gateway?.stop();
});

describe('the chat-bot example in a terminal', () => {
  it('answers "bayar 25000" with the QR and the link, says when it is paid, and ends on "exit"', async () => {
    const bot = new BotProcess({ QRIS_GATEWAY_URL: gateway.url, QRIS_API_KEY: gateway.testKey });
    bots.push(bot);
    // It greets with what it understands.
    await bot.line(/^bot> .*bayar <jumlah>/);
    const ready = await bot.line(/ketik "exit" untuk keluar/);

    bot.type('help');
    await bot.line(/^bot> .*bayar <jumlah>/, ready.index + 1);

    bot.type('bayar 25000');
    const photo = await bot.line(/^bot> \[foto QR: /);
    const answer =
      /^bot> \[foto QR: (\S+\.png)\] Scan untuk membayar tepat Rp([\d.]+) sebelum .* WIB, atau buka \S+\/checkout\/(trx_\w+)$/.exec(
        photo.text,
      );
    expect(answer, photo.text).not.toBeNull();
    const [, file, total, trxid] = answer!;
    // The saved photo is the transaction's QRIS, of the exact total the caption names.
    const image = PNG.sync.read(readFileSync(file!));
    const payload = jsQR(new Uint8ClampedArray(image.data), image.width, image.height)!.data;
    const client = new QrisGatewayClient({ baseUrl: gateway.url, apiKey: gateway.testKey });
    const tx = await client.getStatus(trxid!);
    expect(tx.status).toBe('pending');
    expect(payload).toBe(tx.qris);
    expect(parseTlv(payload).find((f) => f.tag === '54')!.value).toBe(String(tx.total_amount));
    expect(total).toBe(tx.total_amount.toLocaleString('id-ID'));

    // The payer pays (the sandbox's simulate); the bot, waiting on the gateway, says so unasked.
    await client.simulatePayment(trxid!);
    await bot.line(
      new RegExp(`^bot> Pembayaran Rp${total!.replace(/\./g, '\\.')} diterima\\. Terima kasih!$`),
      photo.index + 1,
    );

    bot.type('exit');
    expect(await bot.exited).toBe(0);
    expect(bot.stderr()).toBe('');
  }, 120_000);

  it('says which settings it needs instead of exiting silently', async () => {
    const bot = new BotProcess({});
    bots.push(bot);
    expect(await bot.exited).toBe(1);
    expect(bot.stderr()).toContain('Set QRIS_API_KEY');
  }, 60_000);
});
