import type { Kysely } from 'kysely';

// How a merchant's unique code makes the total (issue 37, section 3): 'add' (the default, as before) puts
// it on top of the price, 'subtract' takes it off, so the payer never pays more than the price. Set by
// `merchant update ID --unique-code add|subtract` and the merchant's console page; read by the static-QRIS
// issuer (services/transactions/static-qris-issuer.ts), which stores a subtracted code as a negative one.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('merchants')
    .addColumn('unique_code_mode', 'text', (c) => c.notNull().defaultTo('add'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').dropColumn('unique_code_mode').execute();
}
