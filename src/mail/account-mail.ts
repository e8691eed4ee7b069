// E-mails about a console account: the sign-up link, the notice to an address that already has an
// account, the password-reset link and an invitation. Each is written in Bahasa Indonesia and English, as
// text and as HTML from the same words. They carry a single-use link and are sent at once, not queued,
// so the link's token is never stored anywhere but in the mail itself.
import { html } from '../domain/html.js';
import type { OutgoingMail } from './sender.js';

export type AccountMailKind = 'verify' | 'already-registered' | 'reset' | 'invite';

interface Words {
  subject: string;
  lines: string[];
  button: string;
  after: string;
}

const WORDS: Record<AccountMailKind, { id: Words; en: Words }> = {
  verify: {
    id: {
      subject: 'Konfirmasi alamat email Anda',
      lines: ['Seseorang (semoga Anda) mendaftar di gateway QRIS ini dengan alamat email ini.', 'Buka tautan ini untuk mengonfirmasi alamat dan masuk:'],
      button: 'Konfirmasi dan masuk',
      after: 'Tautan berlaku 24 jam dan hanya sekali. Jika Anda tidak mendaftar, abaikan email ini.',
    },
    en: {
      subject: 'Confirm your e-mail address',
      lines: ['Someone (we hope you) signed up at this QRIS gateway with this address.', 'Open this link to confirm the address and log in:'],
      button: 'Confirm and log in',
      after: 'The link works once, for 24 hours. If you did not sign up, ignore this e-mail.',
    },
  },
  'already-registered': {
    id: {
      subject: 'Anda sudah punya akun',
      lines: [
        'Seseorang mencoba mendaftar dengan alamat email ini, tetapi alamat ini sudah punya akun.',
        'Jika itu Anda, masuk saja, atau atur ulang kata sandi di sini:',
      ],
      button: 'Atur ulang kata sandi',
      after: 'Jika bukan Anda, abaikan email ini: tidak ada yang berubah.',
    },
    en: {
      subject: 'You already have an account',
      lines: ['Someone tried to sign up with this address, which already has an account.', 'If that was you, just log in, or reset your password here:'],
      button: 'Reset your password',
      after: 'If it was not you, ignore this e-mail: nothing has changed.',
    },
  },
  reset: {
    id: {
      subject: 'Atur ulang kata sandi',
      lines: ['Seseorang meminta pengaturan ulang kata sandi akun Anda.', 'Buka tautan ini untuk memilih kata sandi baru:'],
      button: 'Pilih kata sandi baru',
      after: 'Tautan berlaku 24 jam dan hanya sekali. Jika Anda tidak memintanya, abaikan email ini.',
    },
    en: {
      subject: 'Reset your password',
      lines: ['Someone asked to reset the password of your account.', 'Open this link to choose a new password:'],
      button: 'Choose a new password',
      after: 'The link works once, for 24 hours. If you did not ask, ignore this e-mail.',
    },
  },
  invite: {
    id: {
      subject: 'Undangan ke gateway QRIS',
      lines: ['Anda diundang untuk membuat akun di gateway QRIS ini.', 'Buka tautan ini untuk memilih kata sandi dan masuk:'],
      button: 'Terima undangan',
      after: 'Tautan berlaku 72 jam dan hanya sekali.',
    },
    en: {
      subject: 'An invitation to a QRIS gateway',
      lines: ['You are invited to make an account at this QRIS gateway.', 'Open this link to choose a password and log in:'],
      button: 'Accept the invitation',
      after: 'The link works once, for 72 hours.',
    },
  },
};

/** The mail of this kind to `to`, with `link` (absolute) as its one action. */
export function renderAccountMail(kind: AccountMailKind, to: string, link: string, messageId: string): OutgoingMail {
  const { id, en } = WORDS[kind];
  const text = [id, en].map((w) => [...w.lines, link, '', w.after].join('\n')).join('\n\n---\n\n');
  const part = (w: Words, lang: string) =>
    html`<div lang="${lang}">${w.lines.map((l) => html`<p>${l}</p>`)}<p><a href="${link}">${w.button}</a></p><p style="color:#5d6d7e">${w.after}</p></div>`;
  const body = html`<!doctype html><html><body style="font-family:sans-serif;color:#1b2631">${part(id, 'id')}<hr>${part(en, 'en')}</body></html>`;
  return { messageId, to, subject: `${id.subject} / ${en.subject}`, text, html: body.toString(), attachments: [] };
}
