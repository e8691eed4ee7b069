import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import * as core from './migrations/001-core.js';
import * as sourcesAndOutbox from './migrations/002-sources-and-outbox.js';
import * as paymentMatching from './migrations/003-payment-matching.js';
import * as snap from './migrations/004-snap.js';
import * as partialIndexes from './migrations/005-partial-indexes.js';
import * as cancel from './migrations/006-cancel.js';
import * as consoleTables from './migrations/007-console.js';
import * as signup from './migrations/008-signup.js';
import * as quotas from './migrations/009-quotas.js';
import * as paymentLinks from './migrations/010-payment-links.js';
import * as linkDailyCreates from './migrations/011-link-daily-creates.js';
import * as liveRejections from './migrations/012-live-rejections.js';
import * as comparedTransaction from './migrations/013-compared-transaction.js';
import * as notifyChannels from './migrations/014-notify-channels.js';
import * as cashiers from './migrations/015-cashiers.js';
import * as receipts from './migrations/016-receipts.js';
import * as amountPaid from './migrations/017-amount-paid.js';
import * as refunds from './migrations/018-refunds.js';
import * as dailyReports from './migrations/019-daily-reports.js';

// Migrations are listed in code rather than read from a folder, so the same list works from TypeScript
// sources, from dist/, and from a bundled install.
const MIGRATIONS: Record<string, Migration> = {
  '001-core': core,
  '002-sources-and-outbox': sourcesAndOutbox,
  '003-payment-matching': paymentMatching,
  '004-snap': snap,
  '005-partial-indexes': partialIndexes,
  '006-cancel': cancel,
  '007-console': consoleTables,
  '008-signup': signup,
  '009-quotas': quotas,
  '010-payment-links': paymentLinks,
  '011-link-daily-creates': linkDailyCreates,
  '012-live-rejections': liveRejections,
  '013-compared-transaction': comparedTransaction,
  '014-notify-channels': notifyChannels,
  '015-cashiers': cashiers,
  '016-receipts': receipts,
  '017-amount-paid': amountPaid,
  '018-refunds': refunds,
  '019-daily-reports': dailyReports,
};

const RACED_LISTING = new Set(['3F000', '42P01', '42703']);

export async function migrateToLatest(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  // Kysely looks for its bookkeeping table across every schema it can see; naming the connection's own
  // schema keeps two gateways (or test runs) in separate schemas of one database from confusing each other.
  const schema = dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  // Already at the latest (every start after the first, every CLI command): said by one read of the
  // bookkeeping table, without Kysely's listing of every schema's tables, which another process renaming
  // or dropping a schema at that moment fails (3F000) and which costs more than the check.
  if (schema && (await appliedAll(db, schema))) return;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const { error } = await migrator.migrateToLatest();
    // Kysely lists the tables and columns of every schema it can see; one that another process drops or
    // alters meanwhile (parallel test runs, each in its own schema) fails that listing with 3F000 (schema),
    // 42P01 (table) or 42703 (column) although nothing here is wrong. A failed migration rolls back, so
    // asking again is safe, and a real fault fails the same way every time.
    if (error && RACED_LISTING.has(String((error as { code?: unknown }).code)) && attempt < 10) {
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
      continue;
    }
    if (error) throw error instanceof Error ? error : new Error(String(error));
    return;
  }
}

/** Whether the schema's migration table lists every migration of this build (PostgreSQL). */
async function appliedAll(db: Kysely<any>, schema: string): Promise<boolean> {
  const table = (await sql<{ present: boolean }>`select to_regclass(quote_ident(${schema}) || '.kysely_migration') is not null as present`.execute(db)).rows[0];
  if (!table?.present) return false;
  const { rows } = await sql<{ name: string }>`select name from ${sql.id(schema, 'kysely_migration')}`.execute(db);
  const applied = new Set(rows.map((r) => r.name));
  return Object.keys(MIGRATIONS).every((name) => applied.has(name));
}
