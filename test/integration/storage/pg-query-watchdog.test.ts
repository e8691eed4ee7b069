// DATABASE_QUERY_TIMEOUT_MS (storage/pg-query-watchdog.ts), through the runtime as `serve` opens the
// database: a query the server does not answer in time has its connection ended and fails with
// database_unavailable, and the pool serves the next query on a new connection. The query here is a
// pg_sleep far longer than the limit, so only the watchdog can end it before it returns rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { AppError } from '../../../src/domain/errors.js';
import { openRuntime } from '../../../src/runtime.js';
import { openDatabase } from '../../../src/storage/database.js';
import { migrateToLatest } from '../../../src/storage/migrate.js';
import { freshDatabaseUrl, onPostgres } from '../../helpers/context.js';

describe.runIf(onPostgres)('a PostgreSQL query past DATABASE_QUERY_TIMEOUT_MS', () => {
  it('is ended with database_unavailable, and the next query is served', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qg-watchdog-'));
    const fresh = await freshDatabaseUrl(dir);
    // Migrated first without the limit: on a loaded machine one of the migrations' statements can take
    // longer than the limit, which would end the runtime's own start instead of the query under test.
    const setup = openDatabase(fresh.url);
    await migrateToLatest(setup, 'postgres');
    await setup.close();
    const runtime = await openRuntime(loadConfig({ DATABASE_URL: fresh.url, DATABASE_QUERY_TIMEOUT_MS: '1000' }));
    try {
      const slow = sql<{ slept: string }>`select pg_sleep(20)::text as slept`.execute(runtime.deps.db);
      const failure = await slow.then(
        () => null,
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(AppError);
      expect((failure as AppError).code).toBe('database_unavailable');
      const next = await sql<{ one: number }>`select 1 as one`.execute(runtime.deps.db);
      expect(next.rows).toEqual([{ one: 1 }]);
    } finally {
      await runtime.close();
      await fresh.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
