import { sql, type Kysely } from 'kysely';

// Self-service accounts: verified addresses, single-use links sent by e-mail (sign-up verification,
// password reset, invitations), deleted accounts, and which merchants an operator has approved for live.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('email_verified_at', 'bigint').execute();
  await db.schema.alterTable('users').addColumn('deleted_at', 'bigint').execute();
  // Users made before this migration were made by an operator at the shell: their addresses count as known.
  await sql`update users set email_verified_at = created_at`.execute(db);

  // Only a hash of each link's token is stored: a copy of this table opens no account.
  await db.schema
    .createTable('user_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    // An invitation's merchants, as a JSON array of ids.
    .addColumn('merchant_ids', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('user_tokens_user').on('user_tokens').columns(['user_id']).execute();
  await db.schema.createIndex('user_tokens_expiry').on('user_tokens').columns(['expires_at']).execute();

  // Live keys of a self-service merchant work once an operator approves it (LIVE_KEYS=approval).
  await db.schema.alterTable('merchants').addColumn('live_approved_at', 'bigint').execute();
  // Merchants that exist already were made by operators: approved.
  await sql`update merchants set live_approved_at = created_at`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').dropColumn('live_approved_at').execute();
  await db.schema.dropTable('user_tokens').execute();
  await db.schema.alterTable('users').dropColumn('deleted_at').execute();
  await db.schema.alterTable('users').dropColumn('email_verified_at').execute();
}
