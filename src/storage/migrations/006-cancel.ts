import type { Kysely } from 'kysely';

// Cancel: when a transaction was cancelled. Kept after a late payment turns it paid, so the merchant
// can see that money arrived for an order it had called off.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('cancelled_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').dropColumn('cancelled_at').execute();
}
