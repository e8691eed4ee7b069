// What went wrong with a call of Telegram's Bot API, in words the owner can act on, in both languages
// (issue 37, section 7). The worker describes a failure once, as a code and its values; the attempt log
// keeps the English sentence, and a console page in Bahasa Indonesia shows any such sentence, fresh or
// from the log, in its own language (inLanguage: the English templates are read back into code and values).
import { defineMessages, translator, type Lang } from './messages.js';

const words = defineMessages(
  {
    dns: "could not reach {host}: check the server's internet connection and DNS",
    connect: "could not connect to {host}: check the server's internet connection and any firewall or proxy",
    timeout: "{host} did not answer in time: check the server's internet connection",
    guard: "the request to {host} was refused by the gateway's address guard ({detail})",
    unreachable: 'could not reach {host}: {detail}',
    token: 'the bot token is wrong: copy it again from @BotFather (it looks like 123456789:AA...)',
    chat: 'the chat was not found: open the bot in Telegram and press Start (or add the bot to the group), then try again',
    blocked: 'the bot was blocked in this chat: unblock it in Telegram, then try again',
    kicked: 'the bot is no longer in this group: add it to the group again',
    forbidden: 'the bot may not write to this chat ({detail})',
    webhook:
      'this bot has a webhook set, so the gateway cannot read its messages: remove the webhook (deleteWebhook) or enter the chat ID yourself',
    wait: 'Telegram asks to wait {seconds} s before the next message',
    waitAWhile: 'Telegram asks to wait before the next message',
    username: 'Telegram did not say the bot\u2019s username',
    other: 'Telegram: {detail}',
  },
  {
    dns: 'tidak dapat menjangkau {host}: periksa koneksi internet dan DNS server',
    connect: 'tidak dapat tersambung ke {host}: periksa koneksi internet server serta firewall atau proxy',
    timeout: '{host} tidak menjawab tepat waktu: periksa koneksi internet server',
    guard: 'permintaan ke {host} ditolak oleh penjaga alamat gateway ({detail})',
    unreachable: 'tidak dapat menjangkau {host}: {detail}',
    token: 'token bot salah: salin lagi dari @BotFather (bentuknya seperti 123456789:AA...)',
    chat: 'chat tidak ditemukan: buka bot di Telegram dan tekan Start (atau tambahkan bot ke grup), lalu coba lagi',
    blocked: 'bot diblokir di chat ini: buka blokirnya di Telegram, lalu coba lagi',
    kicked: 'bot tidak lagi ada di grup ini: tambahkan lagi ke grup',
    forbidden: 'bot tidak boleh menulis ke chat ini ({detail})',
    webhook:
      'bot ini memakai webhook, sehingga gateway tidak dapat membaca pesannya: hapus webhook-nya (deleteWebhook) atau isi ID chat sendiri',
    wait: 'Telegram meminta menunggu {seconds} detik sebelum pesan berikutnya',
    waitAWhile: 'Telegram meminta menunggu sebelum pesan berikutnya',
    username: 'Telegram tidak menyebutkan nama pengguna bot',
    other: 'Telegram: {detail}',
  },
);

export type TelegramProblemCode = keyof (typeof words)['en'];

export interface TelegramProblem {
  code: TelegramProblemCode;
  vars?: Record<string, string | number>;
}

export function telegramProblemText(problem: TelegramProblem, lang: Lang): string {
  return translator(words, lang)(problem.code, problem.vars);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Each English template as a pattern that gives back its values, most specific first ('other' last). */
const readers = (Object.keys(words.en) as TelegramProblemCode[]).map((code) => {
  const names: string[] = [];
  const pattern = escapeRegExp(words.en[code]).replace(/\\\{(\w+)\\\}/g, (_whole, name: string) => {
    names.push(name);
    return '(.+?)';
  });
  return { code, names, pattern: new RegExp(`^${pattern}$`, 's') };
});

/**
 * A sentence telegramProblemText wrote in English, said in `lang`; any other text as it is (an error of
 * another channel type, or of an older release). Values (a host, Telegram's own description) stay as they were.
 */
export function inLanguage(text: string, lang: Lang): string {
  if (lang === 'en') return text;
  for (const { code, names, pattern } of readers) {
    const m = pattern.exec(text);
    if (!m) continue;
    const vars = Object.fromEntries(names.map((name, i) => [name, m[i + 1] ?? '']));
    return telegramProblemText({ code, vars }, lang);
  }
  return text;
}
