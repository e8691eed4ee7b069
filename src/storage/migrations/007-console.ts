import type { Kysely } from 'kysely';

// The console: people who log in (operators now, merchants' own users next), their server-side
// sessions, the counters that slow down password guessing, and a merchant's disabled flag.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Stored lower-cased, so one address is one account however it is typed.
    .addColumn('email', 'text', (c) => c.notNull().unique())
    // scrypt, with its parameters and salt in the string (domain/password.ts).
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('disabled_at', 'bigint')
    .addColumn('last_login_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  // Which merchants a merchant user may see; operators see every merchant and have no rows here.
  await db.schema
    .createTable('user_merchants')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_merchants_pk', ['user_id', 'merchant_id'])
    .execute();
  await db.schema.createIndex('user_merchants_merchant').on('user_merchants').columns(['merchant_id']).execute();

  // Only a hash of the cookie's random id is stored: a copy of this table logs nobody in.
  await db.schema
    .createTable('sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    // The absolute end; the idle end is last_seen_at plus the idle limit.
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint')
    .addColumn('client_address', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id']).execute();
  await db.schema.createIndex('sessions_expiry').on('sessions').columns(['expires_at']).execute();

  // Failed logins per client address and per account ('address:...' / 'account:...'), shared by every
  // instance. The account key is a hash of the typed address, so unknown addresses are counted exactly
  // as known ones are and the answers cannot tell them apart.
  await db.schema
    .createTable('login_throttles')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failure_at', 'bigint', (c) => c.notNull())
    .addColumn('blocked_until', 'bigint', (c) => c.notNull())
    .execute();

  // Secrets the gateway makes for itself on first start (the console's cookie-signing key), shared by
  // every instance of one database and kept across restarts.
  await db.schema
    .createTable('gateway_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema.alterTable('merchants').addColumn('disabled_at', 'bigint').execute();
  // When a key was last used, to the minute at best: written off the request path (never per request).
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'bigint').execute();

  // The overview's paid sums by day. Partial: a create (paid_at still null) writes no entry, so the
  // API's hot path pays nothing for it; only the update that marks a transaction paid does.
  await db.schema
    .createIndex('transactions_paid_at')
    .on('transactions')
    .column('paid_at')
    .where('paid_at', 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_paid_at').execute();
  await db.schema.alterTable('api_keys').dropColumn('last_used_at').execute();
  await db.schema.alterTable('merchants').dropColumn('disabled_at').execute();
  for (const table of ['gateway_secrets', 'login_throttles', 'sessions', 'user_merchants', 'users']) {
    await db.schema.dropTable(table).execute();
  }
}
