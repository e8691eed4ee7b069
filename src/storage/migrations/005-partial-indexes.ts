import type { Kysely } from 'kysely';

// Indexes over columns that most rows leave NULL index only the rows that have a value. A plain create
// has no ref and no acquirer reference, and an unmatched payment no transaction, yet each still wrote an
// entry into these indexes. Every lookup through them is an equality on the column (`ref = ?`), which
// implies IS NOT NULL, so both SQLite and PostgreSQL keep using them; uniqueness is unchanged because
// NULLs never collided anyway.
const PARTIAL: Array<{ name: string; table: string; columns: string[]; column: string; unique: boolean }> = [
  {
    name: 'transactions_ref_unique',
    table: 'transactions',
    columns: ['merchant_id', 'mode', 'ref'],
    column: 'ref',
    unique: true,
  },
  {
    name: 'transactions_acquirer_reference',
    table: 'transactions',
    columns: ['merchant_id', 'acquirer_reference'],
    column: 'acquirer_reference',
    unique: false,
  },
  {
    name: 'payments_transaction',
    table: 'payments',
    columns: ['transaction_id'],
    column: 'transaction_id',
    unique: false,
  },
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const ix of PARTIAL) {
    await db.schema.dropIndex(ix.name).execute();
    const create = db.schema.createIndex(ix.name).on(ix.table).columns(ix.columns).where(ix.column, 'is not', null);
    await (ix.unique ? create.unique() : create).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const ix of PARTIAL) {
    await db.schema.dropIndex(ix.name).execute();
    const create = db.schema.createIndex(ix.name).on(ix.table).columns(ix.columns);
    await (ix.unique ? create.unique() : create).execute();
  }
}
