import type { Kysely } from 'kysely';

// SNAP BI acquirer source: query-poll schedule, B2B tokens the gateway issues to acquirers (symmetric
// notifications), and the X-EXTERNAL-IDs already seen. Portable types only, as in 001.
export async function up(db: Kysely<any>): Promise<void> {
  // One row per open acquirer-issued transaction; deleted once it is settled or past its last poll.
  // next_poll_at doubles as the claim: a poller moves it forward with a compare-and-set.
  await db.schema
    .createTable('snap_polls')
    .addColumn('transaction_id', 'text', (c) => c.primaryKey())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_poll_at', 'bigint', (c) => c.notNull())
    .addColumn('stop_after', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('snap_polls_due').on('snap_polls').columns(['next_poll_at']).execute();

  // Only a hash of each token is stored, as for API keys.
  await db.schema
    .createTable('snap_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('snap_tokens_expiry').on('snap_tokens').columns(['expires_at']).execute();

  // SNAP makes X-EXTERNAL-ID unique per day; day is the Jakarta date it was received.
  await db.schema
    .createTable('snap_external_ids')
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('snap_external_ids_pk', ['source_id', 'day', 'external_id'])
    .execute();
  await db.schema.createIndex('snap_external_ids_age').on('snap_external_ids').columns(['created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['snap_external_ids', 'snap_tokens', 'snap_polls']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
