import type { Kysely } from 'kysely';

// Daily create quotas: a merchant's limit (null: none) and how many transactions it created each WIB day.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').addColumn('daily_create_quota', 'integer').execute();
  await db.schema
    .createTable('daily_creates')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    // Days since the epoch in Western Indonesia Time (UTC+7): the merchant's books' day.
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('daily_creates_pk', ['merchant_id', 'day'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('daily_creates').execute();
  await db.schema.alterTable('merchants').dropColumn('daily_create_quota').execute();
}
