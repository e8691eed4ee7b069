import type { Kysely } from 'kysely';

// Written with Kysely's schema builder and portable column types only, so one migration serves SQLite
// and PostgreSQL.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('merchants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('qris_static', 'text', (c) => c.notNull())
    .addColumn('merchant_name', 'text', (c) => c.notNull())
    .addColumn('merchant_city', 'text', (c) => c.notNull())
    .addColumn('nmid', 'text')
    .addColumn('acquirer', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();

  await db.schema
    .createTable('transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('unique_code', 'integer', (c) => c.notNull())
    .addColumn('total_amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('ref', 'text')
    .addColumn('qris', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('paid_at', 'bigint')
    .addColumn('paid_late', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('payment_id', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // A merchant's order id identifies one transaction per mode; NULLs never collide in either database.
  await db.schema
    .createIndex('transactions_ref_unique')
    .on('transactions')
    .columns(['merchant_id', 'mode', 'ref'])
    .unique()
    .execute();
  await db.schema
    .createIndex('transactions_list')
    .on('transactions')
    .columns(['merchant_id', 'mode', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('transactions_due').on('transactions').columns(['status', 'expires_at']).execute();

  await db.schema
    .createTable('reserved_totals')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('total_amount', 'bigint', (c) => c.notNull())
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('reserved_until', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('reserved_totals_pk', ['merchant_id', 'mode', 'total_amount'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('idem_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['merchant_id', 'idem_key'])
    .execute();

  await db.schema
    .createTable('payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('source_payment_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('paid_at', 'bigint', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('payer_name', 'text')
    .addColumn('issuer', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('transaction_id', 'text')
    .addColumn('raw', 'text')
    .addUniqueConstraint('payments_source_unique', ['source', 'source_payment_id'])
    .execute();
  await db.schema
    .createIndex('payments_status')
    .on('payments')
    .columns(['merchant_id', 'status', 'received_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['payments', 'idempotency_keys', 'reserved_totals', 'transactions', 'api_keys', 'merchants']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
