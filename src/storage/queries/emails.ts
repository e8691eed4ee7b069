// The `emails` outbox: payer e-mails and daily reports, jobs of the outbox (outbox-jobs.ts, which
// claims them and records their outcome; several mailer processes may run at once).
import type { Db, Executor, Tx } from '../executor.js';
import type { EmailsTable } from '../schema.js';
import { type DueJobs, dueAt } from './outbox-jobs.js';

/** Rows pending, due at `now` and unleased (or the one of id `only`), oldest first. */
export async function dueEmails(db: Executor, due: DueJobs): Promise<EmailsTable[]> {
  let query = db
    .selectFrom('emails')
    .selectAll()
    .where(dueAt('emails', due.now))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(due.limit);
  if (due.only !== undefined) query = query.where('id', '=', due.only);
  return (due.skipLocked ? query.forUpdate().skipLocked() : query).execute();
}

/** Marks every row due at `now` and unleased as skipped for `reason`, in one statement; how many. */
export async function skipEveryDueEmail(db: Executor, now: number, reason: string): Promise<number> {
  const result = await db
    .updateTable('emails')
    .set({ status: 'skipped', last_error: reason, locked_until: null })
    .where(dueAt('emails', now))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The transaction an e-mail is about, with its merchant's two names (the gateway's and the QRIS's); undefined when it is gone. */
export async function transactionWithMerchantName(db: Db, transactionId: string) {
  return db
    .selectFrom('transactions')
    .innerJoin('merchants', 'merchants.id', 'transactions.merchant_id')
    .selectAll('transactions')
    .select(['merchants.name as merchant_display_name', 'merchants.merchant_name as merchant_qris_name'])
    .where('transactions.id', '=', transactionId)
    .executeTakeFirst();
}

/**
 * Skips the transaction's queued invoice e-mail (recording why), unless a mailer holds it at `now`: one
 * held is left to its mailer, which re-reads the status before sending.
 */
export async function skipQueuedInvoice(trx: Tx, transactionId: string, reason: string, now: number): Promise<void> {
  await trx
    .updateTable('emails')
    .set({ status: 'skipped', last_error: reason })
    .where('transaction_id', '=', transactionId)
    .where('kind', '=', 'invoice')
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .execute();
}

/** A transaction's e-mails (its invoice and receipt), oldest first. */
export async function emailsOfTransaction(db: Db, transactionId: string): Promise<EmailsTable[]> {
  return db
    .selectFrom('emails')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
