// The text of a merchant's alert, one pure function per channel, in the channel's language. Each builds
// on the same lines (a title, then labelled facts), so the three channels say the same thing, each in
// its own form: plain text for Telegram (no parse mode, so nothing a payer typed can break the
// formatting), Discord's markdown with the values escaped, and an e-mail with a text and an HTML part.
import { formatRupiah } from '../domain/money.js';
import { html } from '../domain/html.js';
import type { AlertFacts } from '../domain/notify-facts.js';
import { formatTime } from './format.js';
import { translator, type Lang } from './messages.js';
import { reasonText } from './shared-texts.js';
import { words } from './notify-messages.words.js';

/** Telegram's limit on a message's text. */
export const TELEGRAM_TEXT_LIMIT = 4096;
/** Discord's limit on a webhook message's content. */
export const DISCORD_CONTENT_LIMIT = 2000;

export interface AlertLines {
  /** With the sandbox tag in front for a sandbox payment. */
  title: string;
  /** A sentence under the title, if the alert has one. */
  body: string | null;
  /** Label and value, only those known. */
  fields: Array<[string, string]>;
}

/** What every channel says about an alert, before its own formatting. */
export function alertLines(facts: AlertFacts, lang: Lang): AlertLines {
  const t = translator(words, lang);
  const fields: Array<[string, string]> = [];
  const add = (label: string, value: string | null) => {
    if (value !== null && value !== '') fields.push([label, value]);
  };
  const sandbox = (mode: string) => (mode === 'test' ? `${t('sandbox')} ` : '');
  switch (facts.kind) {
    case 'payment_received': {
      add(t('merchant'), facts.merchantName);
      add(t('ref'), facts.ref);
      add(t('note'), facts.description);
      add(t('payer'), facts.payerName);
      add(t('issuer'), facts.issuer);
      add(t('time'), formatTime(facts.paidAt, lang));
      add(t('transaction'), facts.trxid);
      return {
        title: `${sandbox(facts.mode)}${t('receivedTitle', { amount: formatRupiah(facts.amount) })}`,
        body: null,
        fields,
      };
    }
    case 'payment_unmatched': {
      add(t('merchant'), facts.merchantName);
      add(t('reference'), facts.reference);
      add(t('payer'), facts.payerName);
      add(t('issuer'), facts.issuer);
      add(t('reason'), facts.reason === null ? null : reasonText(facts.reason, lang));
      add(t('time'), formatTime(facts.paidAt, lang));
      add(t('payment'), facts.paymentId);
      return {
        title: `${sandbox(facts.mode)}${t('unmatchedTitle', { amount: formatRupiah(facts.amount) })}`,
        body: t('unmatchedHint'),
        fields,
      };
    }
    case 'webhook_failing': {
      add(t('merchant'), facts.merchantName);
      add(t('time'), formatTime(facts.at, lang));
      return { title: t('failingTitle'), body: t('failingBody', { url: facts.url, count: facts.failures }), fields };
    }
    case 'test': {
      add(t('time'), formatTime(facts.at, lang));
      return { title: t('testTitle'), body: t('testBody', { merchant: facts.merchantName }), fields };
    }
  }
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/** The `text` of Telegram's sendMessage: plain text, sent without a parse mode. */
export function telegramText(facts: AlertFacts, lang: Lang): string {
  const m = alertLines(facts, lang);
  const lines = [
    m.title,
    ...(m.body === null ? [] : [m.body]),
    '',
    ...m.fields.map(([label, value]) => `${label}: ${value}`),
  ];
  return cut(lines.join('\n').trim(), TELEGRAM_TEXT_LIMIT);
}

/** Discord's markdown characters, escaped so that a value (a payer's name, a ref) is shown as typed. */
function escapeDiscord(text: string): string {
  return text.replace(/([\\*_~`|>#[\]()@-])/g, '\\$1');
}

/** The `content` of Discord's execute-webhook: the title in bold, the facts as labelled lines. */
export function discordContent(facts: AlertFacts, lang: Lang): string {
  const m = alertLines(facts, lang);
  const lines = [
    `**${escapeDiscord(m.title)}**`,
    ...(m.body === null ? [] : [escapeDiscord(m.body)]),
    ...m.fields.map(([label, value]) => `${escapeDiscord(label)}: ${escapeDiscord(value)}`),
  ];
  return cut(lines.join('\n'), DISCORD_CONTENT_LIMIT);
}

/** The alert as an e-mail to the merchant's users. */
export function alertEmail(facts: AlertFacts, lang: Lang): { subject: string; text: string; html: string } {
  const m = alertLines(facts, lang);
  const text = [
    m.title,
    '',
    ...(m.body === null ? [] : [m.body, '']),
    ...m.fields.map(([label, value]) => `${label}: ${value}`),
  ].join('\n');
  const body = html`<!doctype html><html lang="${lang}"><body style="font-family:sans-serif">
<h1 style="font-size:1.25rem">${m.title}</h1>
${m.body === null ? '' : html`<p>${m.body}</p>`}
<table>${m.fields.map(([label, value]) => html`<tr><th style="text-align:left;padding-right:1em">${label}</th><td>${value}</td></tr>`)}</table>
</body></html>`;
  return { subject: `qris-gateway: ${m.title}`, text, html: body.toString() };
}
