// Processes starting on one new SQLite file at once (a server and a CLI command, two workers) each migrate
// it at start. Kysely takes no lock on SQLite, so each read the same pending list and all but one failed
// half-way on the first one's tables ("table already exists"); storage/migrate.ts now runs the whole
// migration in one BEGIN IMMEDIATE transaction. Real processes: threads of one process would wait on each
// other's lock inside one event loop.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/storage/database.js';
import { onPostgres } from '../../helpers/context.js';
import { runCommand } from '../../helpers/processes.js';

describe.skipIf(onPostgres)('SQLite migrations started by several processes at once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qg-migrate-race-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('five CLI commands on one new file all succeed, and the file holds every migration once', async () => {
    // The first command builds dist/ when sources are newer: done alone, so the five below race only on the database.
    expect(
      (await runCommand(['merchant', 'list', '--json'], { DATABASE_URL: `sqlite:${join(dir, 'warm.db')}` })).code,
    ).toBe(0);
    for (let round = 0; round < 3; round++) {
      const url = `sqlite:${join(dir, `race-${round}.db`)}`;
      const runs = await Promise.all(
        Array.from({ length: 5 }, () => runCommand(['merchant', 'list', '--json'], { DATABASE_URL: url })),
      );
      expect(runs.map((r) => (r.code === 0 ? 0 : `${r.code}: ${r.stdout}${r.stderr}`))).toEqual([0, 0, 0, 0, 0]);
      const database = openDatabase(url);
      try {
        const applied = await database
          .selectFrom('kysely_migration' as never)
          .select('name' as never)
          .execute();
        const names = applied.map((row) => (row as { name: string }).name);
        expect(new Set(names).size).toBe(names.length);
        expect(names.length).toBeGreaterThanOrEqual(23);
      } finally {
        await database.close();
      }
    }
  }, 180_000);
});
