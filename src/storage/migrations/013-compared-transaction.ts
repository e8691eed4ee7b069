import type { Kysely } from 'kysely';

// The transaction the matcher compared an unmatched payment with (a named one of another total, a total
// whose holder was already paid or made after the payment): kept so the console can link it, since the
// reason alone ("amount mismatch") does not say which transaction the payment named. Null when nothing
// was compared, and for rows stored before this migration.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').addColumn('compared_transaction_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').dropColumn('compared_transaction_id').execute();
}
