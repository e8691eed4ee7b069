import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerAuthentication } from 'smtp-server';

export interface ReceivedMail {
  raw: Buffer;
  from: string;
  to: string[];
  parse(): Promise<ParsedMail>;
}

export interface TestSmtpServer {
  port: number;
  url: string;
  /** Messages the server accepted, in order. */
  messages: ReceivedMail[];
  /** Every DATA the server was offered, accepted or not. */
  dataAttempts: number;
  logins: Array<{ username: string; password: string }>;
  close(): Promise<void>;
}

export interface TestSmtpOptions {
  /** Answer the first n DATA commands with a temporary 451. */
  rejectFirst?: number;
  /** Refuse these recipients with a permanent 550. */
  unknownRecipients?: string[];
  /** Hold each message this long before answering, so concurrent senders overlap. */
  delayMs?: number;
  /** Answer no DATA until this settles (after any delayMs), so a test decides when a mail is delivered. */
  holdUntil?: Promise<unknown>;
  /** Require this login (plain text over loopback, for the test only). */
  login?: { username: string; password: string };
}

/** A real SMTP server on 127.0.0.1 (no TLS) that keeps what it receives. */
export async function startTestSmtpServer(options: TestSmtpOptions = {}): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  const logins: TestSmtpServer['logins'] = [];
  const state = { dataAttempts: 0 };
  const server = new SMTPServer({
    authOptional: !options.login,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth: SMTPServerAuthentication, _session, callback) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      const ok = options.login && auth.username === options.login.username && auth.password === options.login.password;
      callback(
        ok ? null : Object.assign(new Error('authentication failed'), { responseCode: 535 }),
        ok ? { user: auth.username } : undefined,
      );
    },
    onRcptTo(address, _session, callback) {
      if (options.unknownRecipients?.includes(address.address)) {
        return callback(Object.assign(new Error('no such mailbox'), { responseCode: 550 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        state.dataAttempts++;
        const answer = () => {
          if (state.dataAttempts <= (options.rejectFirst ?? 0)) {
            return callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
          }
          const raw = Buffer.concat(chunks);
          const envelope = session.envelope;
          messages.push({
            raw,
            from: envelope.mailFrom ? envelope.mailFrom.address : '',
            to: envelope.rcptTo.map((r) => r.address),
            parse: () => simpleParser(raw, { keepCidLinks: true }),
          });
          callback();
        };
        setTimeout(() => {
          if (options.holdUntil) void options.holdUntil.then(answer, answer);
          else answer();
        }, options.delayMs ?? 0);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    get dataAttempts() {
      return state.dataAttempts;
    },
    logins,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
