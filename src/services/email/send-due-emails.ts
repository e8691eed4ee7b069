import { nextEmailAttemptAt } from '../../domain/mail-retry.js';
import { effectiveStatus, transactionUrls } from '../../domain/transaction.js';
import { PermanentMailError, RelayUnavailableError, type MailSender } from '../../mail/sender.js';
import { renderMail } from '../../mail/templates.js';
import { transactionWithMerchantName } from '../../storage/queries/emails.js';
import { readRefund } from '../../storage/queries/refunds.js';
import type { EmailKind, RefundsTable } from '../../storage/schema.js';
import { payerMerchantName } from '../../domain/merchant-name.js';
import type { Deps } from '../deps.js';
import { paymentOf } from '../transactions/payment-of.js';
import { renderQueuedDailyReport } from '../reports/render-daily-report-mail.js';
import { beginRefundNotice } from './begin-refund-notice.js';
import { claimEmail, type EmailClaim } from './claim-email.js';
import { findDueEmailIds } from './find-due-email-ids.js';
import { finishEmail, type EmailOutcome } from './finish-email.js';
import { skipDueEmails } from './skip-due-emails.js';

export interface SendDueEmailsOptions {
  /** Rows looked at per query. */
  batch?: number;
  /** Rows handled per call at most, so one call cannot run forever behind a large backlog. */
  maxPerRun?: number;
  /** How long a claim holds a row; must exceed the longest send (the SMTP timeouts sum to under a minute). */
  leaseMs?: number;
  random?: () => number;
  /** Asked before each claim; false ends the run there (the mailer is stopping: finish the send under way, start no other). */
  keepGoing?: () => boolean;
}

export interface EmailResult {
  id: string;
  kind: EmailKind;
  outcome: EmailOutcome;
}

export const SMTP_NOT_CONFIGURED = 'smtp_not_configured';

/**
 * Sends the payer e-mails that are due, one row at a time: claim, render from the current state of the
 * transaction, send, record. Without a sender (no SMTP_URL) the due rows are recorded as skipped.
 */
export async function sendDueEmails(deps: Deps, sender: MailSender | null, options: SendDueEmailsOptions = {}): Promise<EmailResult[]> {
  if (sender === null) {
    await skipDueEmails(deps, SMTP_NOT_CONFIGURED);
    return [];
  }
  const batch = options.batch ?? 20;
  const maxPerRun = options.maxPerRun ?? 200;
  const leaseMs = options.leaseMs ?? 120_000;
  const results: EmailResult[] = [];
  let handled = 0;
  while (handled < maxPerRun) {
    const ids = await findDueEmailIds(deps, batch);
    if (ids.length === 0) break;
    let claimedAny = false;
    for (const id of ids) {
      if (handled >= maxPerRun) break;
      if (options.keepGoing && !options.keepGoing()) return results;
      // Claim each row just before sending it, so a lease covers one send and the rest of the batch
      // stays free for other mailers in the meantime.
      const claim = await claimEmail(deps, id, leaseMs);
      if (claim === null) continue;
      claimedAny = true;
      handled++;
      const { outcome, relayDown } = await deliver(deps, sender, claim, options.random);
      if (await finishEmail(deps, claim, outcome)) results.push({ id, kind: claim.row.kind, outcome });
      // The rest would wait out the same connection timeouts for the same answer; they stay due and
      // the next run tries again.
      if (relayDown) return results;
    }
    // Every row of this batch went to other mailers: they are working through the queue.
    if (!claimedAny) break;
  }
  return results;
}

async function deliver(deps: Deps, sender: MailSender, claim: EmailClaim, random?: () => number): Promise<{ outcome: EmailOutcome; relayDown: boolean }> {
  const done = (outcome: EmailOutcome, relayDown = false) => ({ outcome, relayDown });
  const row = claim.row;
  if (row.kind === 'daily_report') return deliverDailyReport(deps, sender, claim, random);

  // A notice of refunds tells of the succeeded refunds it gathered (at most one a window per transaction:
  // services/refunds/announce-refund.ts); a `refund:<id>` row, queued before such notices, of one.
  let refunds: RefundsTable[] | null = null;
  if (row.kind.startsWith('refunds:')) {
    refunds = await beginRefundNotice(deps, row.transaction_id, Number(row.kind.slice('refunds:'.length)));
  } else if (row.kind.startsWith('refund:')) {
    const refund = await readRefund(deps.db, row.kind.slice('refund:'.length));
    refunds = refund?.status === 'succeeded' ? [refund] : [];
  }
  if (refunds !== null && refunds.length === 0) return done({ status: 'skipped', reason: 'refund_not_succeeded' });

  const found = await transactionWithMerchantName(deps.db, row.transaction_id);
  if (!found) return done({ status: 'failed', error: 'transaction_not_found' });
  const { merchant_display_name: name, merchant_qris_name: qrisName, ...transaction } = found;
  // The name the checkout page and the payer's bank app show (the QRIS's), so the mail names the same merchant.
  const merchantName = payerMerchantName({ qrisName, name });

  // An invoice asks the payer to pay; once the transaction is paid, expired or cancelled that request
  // is wrong, so it is not sent late. A receipt is always sent.
  const status = effectiveStatus(transaction, deps.now());
  if (row.kind === 'invoice' && status !== 'pending') return done({ status: 'skipped', reason: `transaction_${status}` });

  try {
    const payment = await paymentOf(deps, transaction);
    const mail = renderMail({
      kind: refunds !== null ? 'refund' : (row.kind as 'invoice' | 'receipt'),
      refunds: refunds ?? [],
      merchantName,
      transaction,
      payment,
      checkoutUrl: transactionUrls(deps.config.publicBaseUrl, transaction.id).checkout,
    });
    await sender.send({ messageId: row.id, to: row.recipient, ...mail });
    return done({ status: 'sent' });
  } catch (err) {
    return failedSend(deps, claim, err, random);
  }
}

/** A merchant's daily report to one owner (queued by services/reports/queue-daily-report-mails.ts). */
async function deliverDailyReport(
  deps: Deps,
  sender: MailSender,
  claim: EmailClaim,
  random?: () => number,
): Promise<{ outcome: EmailOutcome; relayDown: boolean }> {
  const row = claim.row;
  try {
    const mail = await renderQueuedDailyReport(deps, row.transaction_id);
    if (mail === null) return { outcome: { status: 'failed', error: 'report_not_found' }, relayDown: false };
    await sender.send({ messageId: row.id, to: row.recipient, ...mail });
    return { outcome: { status: 'sent' }, relayDown: false };
  } catch (err) {
    return failedSend(deps, claim, err, random);
  }
}

/** A send that threw: failed for good, or tried again later (and whether the relay itself is down). */
function failedSend(deps: Deps, claim: EmailClaim, err: unknown, random?: () => number): { outcome: EmailOutcome; relayDown: boolean } {
  const error = err instanceof Error ? err.message : String(err);
  if (err instanceof PermanentMailError) return { outcome: { status: 'failed', error }, relayDown: false };
  const next = nextEmailAttemptAt(claim.row.attempts + 1, deps.now(), random);
  const relayDown = err instanceof RelayUnavailableError;
  return { outcome: next === null ? { status: 'failed', error } : { status: 'retry', error, nextAttemptAt: next }, relayDown };
}
