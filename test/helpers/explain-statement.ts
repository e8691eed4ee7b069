// What a database does with one statement a query function sends: the statement is caught on its way
// (whichever path it takes), then explained with its values written in, as the planner sees them on a
// first run. For tests that hold a hot read to "one index lookup per key, whatever the statistics say".
import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/storage/database.js';
import { hookStatements } from './statement-hook.js';

export interface SentStatement {
  sql: string;
  parameters: readonly unknown[];
}

/** The one statement `run` sends through `db` (outside a unit of work), with its values. */
export async function captureStatement(db: Database, run: () => Promise<unknown>): Promise<SentStatement> {
  const seen: SentStatement[] = [];
  const unhook = hookStatements(db, { ran: (text, parameters) => seen.push({ sql: text, parameters }) });
  try {
    await run();
  } finally {
    unhook();
  }
  expect(seen).toHaveLength(1);
  return seen[0]!;
}

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/**
 * PostgreSQL: runs the statement under EXPLAIN ANALYZE and counts the rows its scans of `table` returned
 * and the rows any step read and threw away (a filter, a recheck).
 */
export async function rowsTouched(
  db: Database,
  statement: SentStatement,
  table: string,
): Promise<{ read: number; discarded: number }> {
  const { rows } = await sql
    .raw<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (analyze, format json) ${inlined(db, statement)}`)
    .execute(db);
  const walk = (node: PlanNode): { read: number; discarded: number } => {
    const own = {
      read: node['Relation Name'] === table ? (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) : 0,
      discarded: (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0),
    };
    for (const child of node.Plans ?? []) {
      const below = walk(child);
      own.read += below.read;
      own.discarded += below.discarded;
    }
    return own;
  };
  return walk(rows[0]!['QUERY PLAN'][0].Plan);
}

/** SQLite: the statement's query plan, one line per step (EXPLAIN QUERY PLAN's details). */
export async function sqlitePlan(db: Database, statement: SentStatement): Promise<string[]> {
  const { rows } = await sql.raw<{ detail: string }>(`explain query plan ${inlined(db, statement)}`).execute(db);
  return rows.map((r) => r.detail);
}

/** The statement with its values written in as literals (plain ids and whole numbers only). */
function inlined(db: Database, statement: SentStatement): string {
  const literal = (value: unknown): string => {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
    if (typeof value === 'string' && /^[A-Za-z0-9_-]+$/.test(value)) return `'${value}'`;
    throw new Error(`explain-statement: cannot write ${String(value)} as a literal`);
  };
  if (db.dialect === 'postgres') {
    return statement.sql.replace(/\$(\d+)/g, (_, n: string) => literal(statement.parameters[Number(n) - 1]));
  }
  let i = 0;
  return statement.sql.replace(/\?/g, () => literal(statement.parameters[i++]));
}
