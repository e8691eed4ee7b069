import type { Kysely } from 'kysely';

// Merchants' alert channels (issue 27, section 4): a Telegram bot, a Discord webhook or e-mail to the
// merchant's users, each with its language. An alert is an outbox row of its own (notify_deliveries),
// written in the unit of work of the change it reports, with every attempt kept (notify_attempts), as
// webhook deliveries are. The alert keeps the facts it reports (JSON), not a rendered text, so the
// message is built in the channel's language when it is sent.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notify_channels')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    // The bot token (telegram) or the webhook URL (discord); null for e-mail. Never listed in full.
    .addColumn('secret', 'text')
    .addColumn('chat_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('notify_channels_merchant')
    .on('notify_channels')
    .columns(['merchant_id', 'status'])
    .execute();

  await db.schema
    .createTable('notify_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text')
    .addColumn('facts', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('last_status_code', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('notify_deliveries_due')
    .on('notify_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('notify_deliveries_channel')
    .on('notify_deliveries')
    .columns(['channel_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('notify_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('attempted_at', 'bigint', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('succeeded', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .execute();
  await db.schema
    .createIndex('notify_attempts_delivery')
    .on('notify_attempts')
    .columns(['delivery_id', 'attempted_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('notify_attempts').execute();
  await db.schema.dropTable('notify_deliveries').execute();
  await db.schema.dropTable('notify_channels').execute();
}
