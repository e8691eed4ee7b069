import type { Kysely } from 'kysely';

// Receipts (issue 27, section 5): the public link to a paid transaction's receipt carries a random token
// of its own, so the transaction id (the checkout page's capability) is never handed out with it and a
// link can be made only for a transaction the console's viewer may see. One link per transaction.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('receipt_links')
    .addColumn('transaction_id', 'text', (c) => c.primaryKey())
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('receipt_links').execute();
}
