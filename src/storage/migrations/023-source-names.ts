import type { Kysely } from 'kysely';

// A payment source's name (issue 37, section 6): what people call it ("HP kasir"), set by `source add
// --name` and the console's add form, shown wherever a source's id was shown to people. Null for the
// sources made before, and for one added without a name: those show their id as before.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_sources').addColumn('name', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_sources').dropColumn('name').execute();
}
