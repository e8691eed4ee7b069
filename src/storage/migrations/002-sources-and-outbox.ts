import type { Kysely } from 'kysely';

// Payment sources (issue: payment sources) and the outbox of outgoing events, deliveries and e-mails
// (issue: outgoing events). Portable types only, as in 001.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payment_sources')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payment_sources_merchant')
    .on('payment_sources')
    .columns(['merchant_id', 'type'])
    .execute();

  await db.schema.alterTable('transactions').addColumn('source_id', 'text').execute();
  await db.schema.alterTable('transactions').addColumn('acquirer_reference', 'text').execute();
  await db.schema
    .createIndex('transactions_acquirer_reference')
    .on('transactions')
    .columns(['merchant_id', 'acquirer_reference'])
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('subject_type', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('details', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_subject').on('audit_log').columns(['subject_type', 'subject_id']).execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'text')
    .addColumn('payment_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_merchant').on('events').columns(['merchant_id', 'created_at']).execute();
  await db.schema.createIndex('events_transaction').on('events').columns(['transaction_id', 'created_at']).execute();

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('last_status_code', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('deliveries_event_endpoint', ['event_id', 'endpoint_id'])
    .execute();
  await db.schema.createIndex('deliveries_due').on('deliveries').columns(['status', 'next_attempt_at']).execute();

  await db.schema
    .createTable('delivery_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('attempted_at', 'bigint', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('succeeded', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('error', 'text')
    .execute();
  await db.schema
    .createIndex('delivery_attempts_delivery')
    .on('delivery_attempts')
    .columns(['delivery_id', 'attempted_at'])
    .execute();

  await db.schema
    .createTable('emails')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .addUniqueConstraint('emails_transaction_kind', ['transaction_id', 'kind'])
    .execute();
  await db.schema.createIndex('emails_due').on('emails').columns(['status', 'next_attempt_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'emails',
    'delivery_attempts',
    'deliveries',
    'webhook_endpoints',
    'events',
    'audit_log',
    'payment_sources',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
  await db.schema.dropIndex('transactions_acquirer_reference').ifExists().execute();
  await db.schema.alterTable('transactions').dropColumn('acquirer_reference').execute();
  await db.schema.alterTable('transactions').dropColumn('source_id').execute();
}
