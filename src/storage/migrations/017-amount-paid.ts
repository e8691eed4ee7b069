import { type Kysely, sql } from 'kysely';

// Payments that do not fit (issue 28, section 2): what a paid transaction actually received, and by how
// much it fell short of or went over its total when a person accepted a payment of another amount. All
// three are 0 for a transaction not paid; a transaction paid before this migration was paid exactly, so
// it received its total.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('transactions')
    .addColumn('amount_paid', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('transactions')
    .addColumn('underpaid', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('transactions')
    .addColumn('overpaid', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update transactions set amount_paid = total_amount where status = 'paid'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').dropColumn('overpaid').execute();
  await db.schema.alterTable('transactions').dropColumn('underpaid').execute();
  await db.schema.alterTable('transactions').dropColumn('amount_paid').execute();
}
