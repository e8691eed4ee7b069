// E-mails about a console account: the sign-up link, the notice to an address that already has an
// account, the password-reset link and an invitation. Each is written in Bahasa Indonesia and English, as
// text and as HTML from the same words (account-mail.words.ts). They carry a single-use link and are sent
// at once, not queued, so the link's token is never stored anywhere but in the mail itself.
import { html } from '../domain/html.js';
import { translator, type Lang, type Messages } from '../presentation/messages.js';
import { words } from './account-mail.words.js';
import type { OutgoingMail } from './sender.js';

export type AccountMailKind = 'verify' | 'already-registered' | 'reset' | 'invite';

// Every kind has its mail, and every mail the same parts (the compiler checks both).
const WORDS: Record<AccountMailKind, Messages<'subject' | 'intro' | 'action' | 'button' | 'after'>> = words;

/** The mail of this kind to `to`, with `link` (absolute) as its one action. */
export function renderAccountMail(kind: AccountMailKind, to: string, link: string, messageId: string): OutgoingMail {
  // Bahasa Indonesia first, then English.
  const id = translator(WORDS[kind], 'id');
  const en = translator(WORDS[kind], 'en');
  const text = [id, en].map((t) => [t('intro'), t('action'), link, '', t('after')].join('\n')).join('\n\n---\n\n');
  const part = (t: typeof id, lang: Lang) =>
    html`<div lang="${lang}">${[t('intro'), t('action')].map((l) => html`<p>${l}</p>`)}<p><a href="${link}">${t('button')}</a></p><p style="color:#5d6d7e">${t('after')}</p></div>`;
  const body = html`<!doctype html><html><body style="font-family:sans-serif;color:#1b2631">${part(id, 'id')}<hr>${part(en, 'en')}</body></html>`;
  return {
    messageId,
    to,
    subject: `${id('subject')} / ${en('subject')}`,
    text,
    html: body.toString(),
    attachments: [],
  };
}
