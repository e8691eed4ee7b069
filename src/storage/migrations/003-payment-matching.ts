import type { Kysely } from 'kysely';

// Payment matching and polled sources. A feed's next poll time is a column, not part of the JSON state,
// so that several processes can claim a poll with one conditional update (the claim doubles as a lease:
// a crashed poller's claim simply runs out).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_sources').addColumn('next_poll_at', 'bigint').execute();
  await db.schema
    .createIndex('payment_sources_due')
    .on('payment_sources')
    .columns(['type', 'enabled', 'next_poll_at'])
    .execute();
  // payments list --status unmatched across merchants, and the lookups of a transaction's payments.
  await db.schema.createIndex('payments_status_received').on('payments').columns(['status', 'received_at']).execute();
  await db.schema.createIndex('payments_transaction').on('payments').columns(['transaction_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_transaction').ifExists().execute();
  await db.schema.dropIndex('payments_status_received').ifExists().execute();
  await db.schema.dropIndex('payment_sources_due').ifExists().execute();
  await db.schema.alterTable('payment_sources').dropColumn('next_poll_at').execute();
}
