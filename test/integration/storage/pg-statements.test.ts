import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../src/storage/database.js';
import { StatementNames, statementNameOf } from '../../../src/storage/engine/statement-names.js';
import { migrateToLatest } from '../../../src/storage/migrate.js';
import { freshDatabaseUrl, onPostgres } from '../../helpers/context.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('statement names for PostgreSQL', () => {
  it('names data statements once per text, and never transaction control', () => {
    const names = new StatementNames();
    const statementName = (text: string) => names.name(text);
    const text = 'select * from "transactions" where "id" = $1 and "merchant_id" = $2 and "mode" = $3';
    const name = statementName(text);
    expect(name).toMatch(/^qg_[0-9a-f]{16}$/);
    expect(statementName(text)).toBe(name);
    expect(statementName(`${text} limit $4`)).not.toBe(name);
    for (const control of ['begin', 'commit', 'rollback', 'savepoint "unit"', 'LISTEN qris_status', 'analyze']) {
      expect(statementName(control)).toBeUndefined();
    }
    expect(statementName('  WITH x AS (select 1) select * from x')).toMatch(/^qg_[0-9a-f]{16}$/);
  });

  it('a name comes from the text, not from the order the texts were first seen in', () => {
    const a = 'select * from "payments" where "id" = $1';
    const b = 'select * from "merchants" where "id" = $1';
    const first = new StatementNames();
    const second = new StatementNames();
    expect([first.name(a), first.name(b)]).toEqual([statementNameOf(a), statementNameOf(b)]);
    expect([second.name(b), second.name(a)]).toEqual([statementNameOf(b), statementNameOf(a)]);
  });

  it('bulk texts (many values, their text varying with the batch size) cannot spend every name', () => {
    const names = new StatementNames();
    const statementName = (text: string, parameterCount: number) => names.name(text, parameterCount);
    const inList = (n: number) =>
      `select "total_amount" from "reserved_totals" where "total_amount" in (${Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ')})`;
    const named = Array.from({ length: 400 }, (_, i) => statementName(inList(21 + i), 21 + i)).filter(
      (n) => n !== undefined,
    );
    expect(named.length).toBeGreaterThan(50);
    expect(named.length).toBeLessThanOrEqual(100);
    // A bulk text named once keeps its name; an unnamed one stays unnamed.
    expect(statementName(inList(21), 21)).toBe(named[0]);
    expect(statementName(inList(420), 420)).toBeUndefined();
    // Ordinary statements still get names afterwards.
    for (let i = 0; i < 50; i++)
      expect(statementName(`select * from "payments" where "id" = $1 and ${i} = ${i}`, 1)).toMatch(/^qg_[0-9a-f]{16}$/);
  });
});

describe.skipIf(!onPostgres)('named statements on a real PostgreSQL connection', () => {
  let database: Database | null = null;
  let drop: () => Promise<void> = async () => {};
  let dir = '';
  afterEach(async () => {
    await database?.close();
    database = null;
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a repeated query is parsed once on the connection and then only executed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-pgst-'));
    const fresh = await freshDatabaseUrl(dir);
    drop = fresh.drop;
    // One connection, so the statements seen are the ones this test ran.
    database = openDatabase(fresh.url, { poolSize: 1 });
    const db = database;
    await migrateToLatest(db, 'postgres');
    for (let i = 0; i < 3; i++) {
      const rows = await db.selectFrom('merchants').select('id').where('id', '=', `mch_${i}`).execute();
      expect(rows).toEqual([]);
    }
    const prepared = await sql<{
      name: string;
      statement: string;
    }>`select name, statement from pg_prepared_statements`.execute(db);
    const merchantsReads = prepared.rows.filter((r) => r.statement.includes('from "merchants" where "id" = $1'));
    expect(merchantsReads).toHaveLength(1);
    expect(merchantsReads[0]!.name).toBe(statementNameOf(merchantsReads[0]!.statement));
    expect(db.statementNames?.name(merchantsReads[0]!.statement)).toBe(merchantsReads[0]!.name);
    // A failing statement inside a transaction leaves the connection usable for the named ones.
    await expect(
      db.runInTransaction(async (trx) => {
        await sql`select * from no_such_table`.execute(trx);
      }),
    ).rejects.toThrow();
    expect(await db.selectFrom('merchants').select('id').where('id', '=', 'mch_0').execute()).toEqual([]);
  });
});
