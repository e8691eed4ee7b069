// The chat bot in a terminal, to try it without a chat platform: each line typed is a message of one chat,
// and the bot's replies are printed as they come (a payment's reply comes later, when it is paid). A photo
// cannot be shown in a terminal, so it is saved as a PNG file and its path printed with the caption.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearLine, createInterface, cursorTo } from 'node:readline';
import type { Chat } from './bot.js';

interface Bot {
  handle(chatId: string, text: string): Promise<void>;
}

const CHAT_ID = 'terminal';

/** Runs the bot `start` makes on stdin and stdout; resolves after "exit" (or the end of the input). */
export function chatInTerminal(start: (chat: Chat) => Bot): Promise<void> {
  const interactive = process.stdin.isTTY === true;
  const rl = createInterface({ input: process.stdin, output: process.stdout, prompt: 'anda> ', terminal: interactive });
  const photos = mkdtempSync(join(tmpdir(), 'qris-chat-bot-'));
  let photoCount = 0;

  // A reply may arrive while the prompt waits for typing: it goes above the prompt, which is drawn again.
  const print = (line: string) => {
    if (interactive) {
      cursorTo(process.stdout, 0);
      clearLine(process.stdout, 0);
    }
    process.stdout.write(`${line}\n`);
    if (interactive) rl.prompt(true);
  };

  const bot = start({
    async sendText(_chatId, text) {
      print(`bot> ${text}`);
    },
    async sendPhoto(_chatId, png, caption) {
      photoCount += 1;
      const file = join(photos, `qr-${photoCount}.png`);
      writeFileSync(file, png);
      print(`bot> [foto QR: ${file}] ${caption}`);
    },
  });

  // Messages are handled one after another, in the order typed, even when pasted in one go.
  let queue = bot.handle(CHAT_ID, 'help').then(() => print('(ketik "exit" untuk keluar)'));
  const send = (text: string) => {
    queue = queue
      .then(() => bot.handle(CHAT_ID, text))
      .catch((err: unknown) => print(`bot> (galat: ${err instanceof Error ? err.message : String(err)})`));
  };

  return new Promise((resolve) => {
    rl.on('line', (line) => {
      const text = line.trim();
      if (text === 'exit' || text === 'keluar') return rl.close();
      if (text !== '') send(text);
      if (interactive) rl.prompt();
    });
    rl.on('close', () => {
      void queue.finally(() => {
        rmSync(photos, { recursive: true, force: true });
        resolve();
      });
    });
  });
}
