import type { Kysely } from 'kysely';

// Cashiers (issue 27): a console role inside a merchant that sells at the counter through the point of
// sale. users.role is free text, so the role itself needs no column change; an invitation now says which
// role it makes (null: a merchant user, as every invitation before this one did). A transaction records
// the cashier who made it and the sale's note; both NULL for every create of the API or a payment link,
// so their index is partial and the API's creates write no entry into it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('user_tokens').addColumn('role', 'text').execute();
  await db.schema.alterTable('transactions').addColumn('created_by_user_id', 'text').execute();
  await db.schema.alterTable('transactions').addColumn('description', 'text').execute();
  // A cashier's sales of today, and the console's filter by cashier, newest first.
  await db.schema
    .createIndex('transactions_created_by')
    .on('transactions')
    .columns(['created_by_user_id', 'created_at'])
    .where('created_by_user_id', 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_created_by').execute();
  await db.schema.alterTable('transactions').dropColumn('description').execute();
  await db.schema.alterTable('transactions').dropColumn('created_by_user_id').execute();
  await db.schema.alterTable('user_tokens').dropColumn('role').execute();
}
