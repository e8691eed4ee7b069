import { sql, type Kysely } from 'kysely';

// Daily reports (issue 28, section 3).
//
// merchants.daily_report_email: 1 when the merchant's owners asked for yesterday's report by e-mail
// after midnight WIB (set in the console's merchant page or `merchant daily-report ID on|off`).
//
// daily_report_runs: one row per merchant and WIB day whose report e-mails were queued. Its primary key
// is what makes "once per merchant and day" exact across instances: every report worker tries the same
// insert, one wins, and only the winner queues the owners' e-mails (in the same database transaction).
// The mails themselves go through the `emails` outbox (kind 'daily_report'), so they get its retries,
// leases and claims; see services/reports/queue-daily-report-mails.ts for what their row holds.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('merchants')
    .addColumn('daily_report_email', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('daily_report_runs')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    // The WIB day reported, as days since the epoch in WIB (domain/wib.ts).
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('mails', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('daily_report_runs_pk', ['merchant_id', 'day'])
    .execute();
  // Reports read a merchant's paid transactions of a range of days by paid_at. transactions_paid_at
  // (migration 007) leads with paid_at across every merchant and mode, so a merchant's month on a busy
  // gateway would walk every merchant's payments of that month; this one starts at the merchant's own.
  await db.schema
    .createIndex('transactions_merchant_paid_at')
    .on('transactions')
    .columns(['merchant_id', 'mode', 'paid_at'])
    .where('paid_at', 'is not', null)
    .execute();
  // And its succeeded refunds by the day they succeeded (refunds_merchant_created is by the day asked).
  await db.schema
    .createIndex('refunds_merchant_completed')
    .on('refunds')
    .columns(['merchant_id', 'mode', 'completed_at'])
    .where(sql.ref('status'), '=', 'succeeded')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('refunds_merchant_completed').execute();
  await db.schema.dropIndex('transactions_merchant_paid_at').execute();
  await db.schema.dropTable('daily_report_runs').execute();
  await db.schema.alterTable('merchants').dropColumn('daily_report_email').execute();
}
