// E-mail settings, parsed as strictly as the rest of the configuration. Error messages never echo
// SMTP_URL: it may carry the relay's password.
import { parseEmail } from '../domain/email.js';
import { wholeNumber, type SettingsOf } from './kit.js';

export interface MailFrom {
  name: string | null;
  address: string;
}

export interface MailSettings {
  /** smtp:// or smtps://, optionally with user:pass; null means payer e-mails are recorded as skipped. */
  smtpUrl: string | null;
  mailFrom: MailFrom | null;
  /** How often the mailer looks for due e-mails. */
  mailIntervalMs: number;
}

export const mailSettings = {
  smtpUrl: {
    name: 'SMTP_URL',
    shown: 'unset',
    doc: 'the relay for payer e-mail (smtp:// or smtps://); unset: e-mails are recorded as skipped',
    read(raw) {
      if (raw) checkSmtpUrl(raw);
      return raw || null;
    },
  },
  mailFrom: {
    name: 'MAIL_FROM',
    shown: 'unset',
    doc: 'the sender of payer e-mail; required when SMTP_URL is set',
    read(raw, get) {
      const mailFrom = raw ? parseMailFrom(raw) : null;
      if (get('smtpUrl') !== null && mailFrom === null) throw new Error('MAIL_FROM is required when SMTP_URL is set');
      return mailFrom;
    },
  },
  mailIntervalMs: wholeNumber('MAIL_INTERVAL_MS', 'how often the mailer looks for due e-mails', 5000, 100, 3_600_000),
} satisfies SettingsOf<MailSettings>;

function checkSmtpUrl(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('SMTP_URL must be a URL such as smtp://127.0.0.1:2525 or smtps://user:pass@mail.example.com:465');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new Error('SMTP_URL must start with smtp:// or smtps://');
  if (url.hostname === '') throw new Error('SMTP_URL must name a host');
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    throw new Error('SMTP_URL user and password must be percent-encoded (e.g. @ as %40)');
  }
  // nodemailer's query options (pool, tls.*) are not passed through; refusing them beats ignoring them.
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') {
    throw new Error('SMTP_URL takes only scheme, user:pass, host and port (no path or query)');
  }
}

/** "pay@example.com" or "Toko Contoh <pay@example.com>"; the address passes the same check as a payer's. */
function parseMailFrom(raw: string): MailFrom {
  const named = /^(.*?)\s*<([^<>]*)>$/.exec(raw.trim());
  const name = named ? named[1]!.replace(/^"(.*)"$/, '$1').trim() : '';
  const address = named ? named[2]! : raw.trim();
  // Control characters in a display name could forge headers; quotes and brackets would need quoting.
  if (/[\x00-\x1F\x7F"<>]/.test(name) || name.length > 100) {
    throw new Error(
      'MAIL_FROM display name must be at most 100 characters without quotes, brackets or control characters',
    );
  }
  try {
    return { name: name === '' ? null : name, address: parseEmail(address, 'MAIL_FROM')! };
  } catch (err) {
    throw new Error(err instanceof Error ? err.message : 'MAIL_FROM is not a valid address');
  }
}
