import type { Kysely } from 'kysely';

// Refund notices (issue 35, finding 2): a payer gets at most one refund notice per transaction in a
// window (REFUND_NOTICE_WINDOW_SECONDS); the refunds of that window are told together, in one notice.
// A notice is an `emails` row of kind `refunds:<due>`, `due` being when it is to be sent (ms); each
// succeeded refund names the notice that tells of it. What decides a refund's notice is one UPDATE of
// its transaction's row (storage/queries/refunds.ts, scheduleRefundNotice), in the refund's own unit of
// work, and the mailer closes a notice with an UPDATE of the same row before reading its refunds; the
// row lock orders the two on PostgreSQL (SQLite serialises writers), so a refund joins a notice only
// while no mailer has begun it, and is never left out of the one it joined.
//   transactions.refund_notice_due:    when the transaction's latest refund notice is (or was) due;
//   transactions.refund_notice_closed: the due time of the latest notice a mailer has begun; a notice is
//                                      open (refunds may still join it) while closed < due;
//   refunds.notice_due:                the notice that tells the payer of this refund (null: none, as for
//                                      a transaction without e-mail, a failed or pending refund, or a
//                                      refund from before this migration, told by a `refund:<id>` row).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('refund_notice_due', 'bigint').execute();
  await db.schema.alterTable('transactions').addColumn('refund_notice_closed', 'bigint').execute();
  await db.schema.alterTable('refunds').addColumn('notice_due', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('refunds').dropColumn('notice_due').execute();
  await db.schema.alterTable('transactions').dropColumn('refund_notice_closed').execute();
  await db.schema.alterTable('transactions').dropColumn('refund_notice_due').execute();
}
