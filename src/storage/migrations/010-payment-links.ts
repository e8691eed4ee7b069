import type { Kysely } from 'kysely';

// Payment links: a merchant's public handle, as in /pay/{handle}. Unique across merchants (lower-case
// only, so one spelling is one handle); partial, so the many merchants without a link add nothing to it
// (NULLs never collide either way).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').addColumn('payment_link_handle', 'text').execute();
  await db.schema
    .createIndex('merchants_payment_link_handle')
    .on('merchants')
    .column('payment_link_handle')
    .unique()
    .where('payment_link_handle', 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('merchants_payment_link_handle').execute();
  await db.schema.alterTable('merchants').dropColumn('payment_link_handle').execute();
}
