import nodemailer from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import type { MailFrom } from '../settings/mail.js';
import { PermanentMailError, RelayUnavailableError, type MailSender, type OutgoingMail } from './sender.js';

// A relay that accepts the TCP connection and then stalls must not hold a mailer (and its row lease)
// for minutes; these bound every phase of one send well inside the lease.
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000, dnsTimeout: 10_000 };

/** SMTP_URL as nodemailer options. Credentials are percent-decoded, as URLs require them to be encoded. */
export function smtpOptions(smtpUrl: string): SMTPPool.Options {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  const options: SMTPPool.Options = {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    secure,
    ...TIMEOUTS,
    // One connection, reused across the sends of a tick: the mailer sends one message at a time anyway.
    pool: true,
    maxConnections: 1,
    maxMessages: 100,
  };
  if (url.port !== '') options.port = Number(url.port);
  if (url.username !== '') {
    options.auth = { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
  }
  return options;
}

/** SMTP_URL fit for a log line: the password replaced. */
export function describeSmtpUrl(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  if (url.password !== '') url.password = '***';
  return url.toString().replace(/\/$/, '');
}

export function createSmtpSender(smtpUrl: string, from: MailFrom): MailSender {
  const transport = nodemailer.createTransport(smtpOptions(smtpUrl));
  const fromDomain = from.address.slice(from.address.lastIndexOf('@') + 1);
  return {
    async send(mail: OutgoingMail) {
      try {
        await transport.sendMail({
          from: from.name === null ? from.address : { name: from.name, address: from.address },
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: `<${mail.messageId}@${fromDomain}>`,
          attachments: mail.attachments.map((a) => ({ ...a, contentDisposition: 'inline' as const })),
        });
      } catch (err) {
        throw classify(err);
      }
    },
    close() {
      transport.close();
    },
  };
}

// nodemailer's codes for a relay that cannot be reached or will not let us in at all.
const RELAY_DOWN: ReadonlySet<string> = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ETLS',
  'EAUTH',
  'ECONNREFUSED',
]);

// A 5xx answer to RCPT TO is the relay saying this address will never take mail: retrying for a day
// only delays the failure. Every other error (connection, auth, 4xx, DATA) may be transient or fixed
// by the operator, so it is retried.
function classify(err: unknown): Error {
  const e = err as { code?: unknown; responseCode?: unknown; command?: unknown; message?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  if (
    e?.code === 'EENVELOPE' &&
    e.command === 'RCPT TO' &&
    typeof e.responseCode === 'number' &&
    e.responseCode >= 500
  ) {
    return new PermanentMailError(message);
  }
  if (typeof e?.code === 'string' && RELAY_DOWN.has(e.code)) return new RelayUnavailableError(message);
  return err instanceof Error ? err : new Error(message);
}
