import type { Kysely } from 'kysely';

// Notifications a phone source received (issue 36, section 1): every authenticated post is kept with what
// it became, ignored ones included, so a merchant sees on the console why a payment did not match. One
// row per payment a notification carried (a grouped GoPay notification is several), or one for a
// notification that paid nothing. Bounded: the unit of work that adds rows keeps only the source's latest
// (services/sources/record-notification.ts).
//   outcome:    matched | unmatched | duplicate | ignored
//   reason:     an unmatched payment's reason, or why a notification was ignored
//   payment_id: the payment it recorded (null when ignored)
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('source_notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('app', 'text')
    .addColumn('title', 'text')
    .addColumn('text', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('payment_id', 'text')
    .execute();
  await db.schema
    .createIndex('source_notifications_latest')
    .on('source_notifications')
    .columns(['source_id', 'received_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('source_notifications').execute();
}
