// The `emails` outbox: due rows, leases and results. Several mailer processes may run at once, so every
// write is a conditional update (see services/email/claim-email.ts for the protocol).
import type { Db, Executor, Tx } from '../executor.js';
import type { EmailsTable } from '../schema.js';

/** What became of a claimed row; `error` is stored as given (the caller bounds its length). */
export type EmailOutcome =
  | { status: 'sent' }
  | { status: 'skipped'; reason: string }
  | { status: 'retry'; error: string; nextAttemptAt: number }
  | { status: 'failed'; error: string };

/** Ids of rows pending, due at `now` and unleased, oldest first. */
export async function dueEmailIds(db: Executor, now: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('emails')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Leases one row until `lease` if it is still due and unleased at `now`; the row, or undefined when another took it. */
export async function leaseDueEmail(db: Executor, id: string, now: number, lease: number): Promise<EmailsTable | undefined> {
  return db
    .updateTable('emails')
    .set({ locked_until: lease })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .returningAll()
    .executeTakeFirst();
}

/** Writes a leased row's outcome while the lease is still `lease`; false when it was lost (nothing written). */
export async function recordEmailOutcome(db: Executor, id: string, lease: number, outcome: EmailOutcome, now: number): Promise<boolean> {
  const base = db.updateTable('emails').where('id', '=', id).where('status', '=', 'pending').where('locked_until', '=', lease);
  let query: ReturnType<typeof base.set>;
  switch (outcome.status) {
    case 'sent':
      query = base.set((eb) => ({ status: 'sent', sent_at: now, attempts: eb('attempts', '+', 1), locked_until: null, last_error: null }));
      break;
    case 'skipped':
      // Skipping sends nothing, so it is not an attempt.
      query = base.set({ status: 'skipped', locked_until: null, last_error: outcome.reason });
      break;
    case 'retry':
      query = base.set((eb) => ({
        attempts: eb('attempts', '+', 1),
        next_attempt_at: outcome.nextAttemptAt,
        locked_until: null,
        last_error: outcome.error,
      }));
      break;
    case 'failed':
      query = base.set((eb) => ({ status: 'failed', attempts: eb('attempts', '+', 1), locked_until: null, last_error: outcome.error }));
      break;
  }
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks every row due at `now` and unleased as skipped for `reason`, in one statement; how many. */
export async function skipEveryDueEmail(db: Executor, now: number, reason: string): Promise<number> {
  const result = await db
    .updateTable('emails')
    .set({ status: 'skipped', last_error: reason, locked_until: null })
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
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
  return db.selectFrom('emails').selectAll().where('transaction_id', '=', transactionId).orderBy('created_at').orderBy('id').execute();
}
