// Account mails (sign-up links, reset links, "you already have an account") go out after the answer.
//
// Sent inside the request, a known address answered only after the relay did (about 100 ms against 30
// for an unknown one), which told a stranger which addresses have accounts, and a slow relay held the
// form. So the services post the mail here and answer at once; this sends it in the background, one at
// a time (the SMTP pool has one connection), trying a failed send again a few times.
//
// Not the durable `emails` outbox: those rows are rendered from a transaction when sent, and an account
// mail carries a single-use login link whose token exists nowhere but in the mail (only its hash is
// stored). Putting it in a table would let anyone who reads the database log in as anyone who asked. A
// mail still queued when the process stops is lost; its owner asks again.
import type { Logger } from 'pino';
import { PermanentMailError, type MailSender, type OutgoingMail } from './sender.js';

/** Where services hand account mails: `post` never waits for the relay and never throws. */
export interface AccountMailer {
  post(mail: OutgoingMail): void;
}

export interface AccountMailQueueOptions {
  /** Mails waiting at most; past it new ones are dropped (and logged), so a flood cannot fill memory. */
  maxWaiting?: number;
  /** Waits before each further try of a failed send. */
  retryDelaysMs?: readonly number[];
}

export class AccountMailQueue implements AccountMailer {
  private readonly waiting: Array<{ mail: OutgoingMail; tries: number }> = [];
  private readonly maxWaiting: number;
  private readonly retryDelaysMs: readonly number[];
  private sending = false;
  private readonly retries = new Set<NodeJS.Timeout>();
  private idleWaiters: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly sender: MailSender,
    private readonly logger: Logger,
    options: AccountMailQueueOptions = {},
  ) {
    this.maxWaiting = options.maxWaiting ?? 1000;
    this.retryDelaysMs = options.retryDelaysMs ?? [5_000, 30_000, 120_000];
  }

  post(mail: OutgoingMail): void {
    if (this.closed) return;
    if (this.waiting.length >= this.maxWaiting) {
      this.logger.warn({ messageId: mail.messageId }, 'account e-mail dropped: too many waiting');
      return;
    }
    this.waiting.push({ mail, tries: 0 });
    void this.pump();
  }

  /** Resolves once nothing waits, is being sent or is due for another try (for tests and for close). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking mails, gives the ones queued up to `graceMs` to go out, then closes the sender. */
  async close(graceMs = 10_000): Promise<void> {
    this.closed = true;
    for (const timer of this.retries) clearTimeout(timer);
    this.retries.clear();
    this.notifyIdle();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    if (this.waiting.length > 0)
      this.logger.warn({ count: this.waiting.length }, 'account e-mails not sent before shutdown');
    this.waiting.length = 0;
    this.sender.close();
  }

  private isIdle(): boolean {
    return !this.sending && this.waiting.length === 0 && this.retries.size === 0;
  }

  private async pump(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    try {
      for (let next = this.waiting.shift(); next; next = this.waiting.shift()) {
        try {
          await this.sender.send(next.mail);
        } catch (err) {
          this.failed(next, err);
        }
      }
    } finally {
      this.sending = false;
    }
    this.notifyIdle();
  }

  private notifyIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private failed(item: { mail: OutgoingMail; tries: number }, err: unknown): void {
    const delay = this.retryDelaysMs[item.tries];
    const error = err instanceof Error ? err.message : String(err);
    if (this.closed || err instanceof PermanentMailError || delay === undefined) {
      this.logger.warn({ messageId: item.mail.messageId, error }, 'account e-mail not sent');
      return;
    }
    this.logger.info(
      { messageId: item.mail.messageId, error, retryInMs: delay },
      'account e-mail failed; trying again',
    );
    const timer = setTimeout(() => {
      this.retries.delete(timer);
      if (this.closed) return;
      this.waiting.push({ mail: item.mail, tries: item.tries + 1 });
      void this.pump();
    }, delay);
    timer.unref();
    this.retries.add(timer);
  }
}
