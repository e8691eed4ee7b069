import type { Kysely } from 'kysely';

// How many transactions each merchant's payment links made each WIB day. Kept apart from daily_creates
// (the merchant's API quota, migration 009): anonymous payers' opens are held to a cap of their own
// (PAYMENT_LINK_DAILY_CREATES), so they can never use up what the merchant's own API needs.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('link_daily_creates')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('link_daily_creates_pk', ['merchant_id', 'day'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('link_daily_creates').execute();
}
