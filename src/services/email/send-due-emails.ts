import { PermanentMailError, RelayUnavailableError, type MailSender } from '../../mail/sender.js';
import type { EmailKind, EmailsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import type { Attempt, Claimed } from '../outbox/queue.js';
import { runDue, type JobReport } from '../outbox/run-due.js';
import { emailQueue } from './email-queue.js';
import { mailKindOf } from './kinds/index.js';
import { skipDueEmails } from './skip-due-emails.js';

export interface SendDueEmailsOptions {
  /** Rows looked at per claim. */
  batch?: number;
  /** Rows handled per call at most, so one call cannot run forever behind a large backlog. */
  maxPerRun?: number;
  /** How long a claim holds a row; must exceed the longest send (the SMTP timeouts sum to under a minute). */
  leaseMs?: number;
  random?: () => number;
  /** Asked before each claim; false ends the run there (the mailer is stopping: finish the send under way, start no other). */
  keepGoing?: () => boolean;
}

/** What became of a claimed row. */
export type EmailOutcome =
  | { status: 'sent' }
  | { status: 'skipped'; reason: string }
  | { status: 'retry'; error: string; nextAttemptAt: number }
  | { status: 'failed'; error: string };

export interface EmailResult {
  id: string;
  kind: EmailKind;
  outcome: EmailOutcome;
}

export const SMTP_NOT_CONFIGURED = 'smtp_not_configured';

const LAST_ERROR_MAX = 500;

/**
 * Sends the e-mails that are due, one row at a time: claim, compose from the current state (the row's
 * kind says how, kinds/index.ts), send, record. Without a sender (no SMTP_URL) the due rows are
 * recorded as skipped.
 */
export async function sendDueEmails(
  deps: Deps,
  sender: MailSender | null,
  options: SendDueEmailsOptions = {},
): Promise<EmailResult[]> {
  if (sender === null) {
    await skipDueEmails(deps, SMTP_NOT_CONFIGURED);
    return [];
  }
  // One at a time: a lease covers one send, and the rest of the queue stays free for other mailers.
  const { reports } = await runDue(deps, emailQueue, (row) => sendEmail(deps, sender, row), {
    concurrency: 1,
    maxPerRun: options.maxPerRun ?? 200,
    candidates: options.batch ?? 20,
    leaseMs: options.leaseMs ?? 120_000,
    random: options.random,
    keepGoing: options.keepGoing,
  });
  const results: EmailResult[] = [];
  for (const r of reports) {
    // Not lost: the lease runs out and the row is sent again; the run fails, and the mailer says so.
    if (r.state === 'unrecorded') throw r.error;
    const outcome = outcomeOf(r);
    if (outcome !== null) results.push({ id: r.job.id, kind: r.job.kind, outcome });
  }
  return results;
}

function outcomeOf(r: JobReport<EmailsTable, Attempt>): EmailOutcome | null {
  const error = r.attempt?.error ?? '';
  if (r.state === 'succeeded') return { status: 'sent' };
  if (r.state === 'skipped') return { status: 'skipped', reason: error };
  if (r.state === 'retrying') return { status: 'retry', error, nextAttemptAt: r.nextAttemptAt! };
  if (r.state === 'failed') return { status: 'failed', error };
  return null;
}

/** Composes a row by its kind and sends it; every outcome is an attempt (never throws). */
async function sendEmail(deps: Deps, sender: MailSender, row: Claimed<EmailsTable>): Promise<Attempt> {
  const attemptedAt = deps.now();
  const started = performance.now();
  const attempt = (a: Pick<Attempt, 'result' | 'error'> & Partial<Attempt>): Attempt => ({
    attemptedAt,
    durationMs: Math.round(performance.now() - started),
    statusCode: null,
    ...a,
    error: a.error === null ? null : a.error.slice(0, LAST_ERROR_MAX),
  });
  try {
    const composed = await mailKindOf(row.kind).compose(deps, row);
    if ('skipped' in composed) return attempt({ result: 'skipped', error: composed.skipped });
    if ('failed' in composed) return attempt({ result: 'failed', permanent: true, error: composed.failed });
    await sender.send({ messageId: row.id, to: row.recipient, ...composed.mail });
    return attempt({ result: 'succeeded', error: null });
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    // The rest would wait out the same connection timeouts for the same answer: they stay due, and
    // the next run tries again.
    return attempt({
      result: 'failed',
      error,
      permanent: err instanceof PermanentMailError,
      endsRun: err instanceof RelayUnavailableError,
    });
  }
}
