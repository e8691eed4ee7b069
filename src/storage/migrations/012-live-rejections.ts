import type { Kysely } from 'kysely';

// An operator may reject a self-service merchant's live keys (the approval queue's Reject) and undo it
// ("Ask again"). Who rejected is kept as the actor's text (audit_log.actor's form), so the merchant's page
// can say so after the user is gone. The NMID index serves the duplicate check of every merchant add.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').addColumn('live_rejected_at', 'bigint').execute();
  await db.schema.alterTable('merchants').addColumn('live_rejected_by', 'text').execute();
  await db.schema.createIndex('merchants_nmid').on('merchants').columns(['nmid']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('merchants_nmid').execute();
  await db.schema.alterTable('merchants').dropColumn('live_rejected_by').execute();
  await db.schema.alterTable('merchants').dropColumn('live_rejected_at').execute();
}
