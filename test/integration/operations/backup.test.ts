// Issue 25, part 5: `backup` and `restore` as an operator runs them, against a real gateway process on a
// real SQLite file: a backup taken under a create load holds every create acknowledged before it began,
// restores into a fresh gateway that serves it, and restore refuses while a gateway has the file open.
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { openRuntime } from '../../../src/runtime.js';
import { CQRIS, CSTATUS } from '../../helpers/api.js';
import { onPostgres, seedMerchant } from '../../helpers/context.js';
import { runCommand, startGateway, type GatewayProcess } from '../../helpers/processes.js';

const env = (db: string) => ({
  DATABASE_URL: `sqlite:${db}`,
  DEMO_MERCHANT: 'false',
  RATE_LIMIT_PER_MINUTE: '0',
  LOG_LEVEL: 'warn',
});

function onlyJson(stdout: string): Record<string, any> {
  const lines = stdout.split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toBe('');
  return JSON.parse(lines[0]!) as Record<string, any>;
}

function integrity(path: string): string {
  const db = new BetterSqlite3(path, { readonly: true });
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}

function transactionIds(path: string): Set<string> {
  const db = new BetterSqlite3(path, { readonly: true });
  try {
    return new Set((db.prepare('SELECT id FROM transactions').all() as Array<{ id: string }>).map((r) => r.id));
  } finally {
    db.close();
  }
}

describe.skipIf(onPostgres)('backup and restore (SQLite, real processes)', () => {
  let dir: string;
  let dbPath: string;
  let key: string;
  let gateway: GatewayProcess | null = null;
  let backupFile: string;
  /** Creates acknowledged (answered 200) before the backup command was started. */
  const ackedBefore: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-backup-'));
    dbPath = join(dir, 'gateway.db');
    backupFile = join(dir, 'copy.db');
    const runtime = await openRuntime(loadConfig(env(dbPath)));
    try {
      key = (await seedMerchant(runtime.deps)).testKey;
    } finally {
      await runtime.close();
    }
    gateway = await startGateway(env(dbPath));
  }, 180_000);

  afterAll(async () => {
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes a verified backup under a create load that holds every create acknowledged before it began', async () => {
    const acked: Array<{ id: string; at: number }> = [];
    let running = true;
    let failures = 0;
    let amount = 10_000;
    const worker = async () => {
      while (running) {
        const res = await fetch(`${gateway!.url}${CQRIS}?amount=${amount++}`, { headers: { 'x-api-key': key } });
        if (res.status === 200)
          acked.push({ id: ((await res.json()) as { data: { trxid: string } }).data.trxid, at: performance.now() });
        else failures++;
      }
    };
    const load = Promise.all([worker(), worker(), worker(), worker()]);
    while (acked.length < 200) await new Promise((r) => setTimeout(r, 20));
    const started = performance.now();
    const result = await runCommand(['backup', '--to', backupFile, '--json'], env(dbPath));
    const ackedDuring = acked.filter((a) => a.at > started).length;
    running = false;
    await load;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = onlyJson(result.stdout);
    expect(Object.keys(report).sort()).toEqual(['bytes', 'file', 'tables']);
    expect(report.file).toBe(backupFile);
    expect(report.bytes).toBe(statSync(backupFile).size);
    expect(report.tables.transactions).toBeGreaterThanOrEqual(200);
    expect(report.tables.kysely_migration).toBeGreaterThan(0);
    expect(failures).toBe(0);
    // The gateway kept answering while the copy was made.
    expect(ackedDuring).toBeGreaterThan(0);
    for (const a of acked) if (a.at < started) ackedBefore.push(a.id);
    expect(integrity(backupFile)).toBe('ok');
    const inBackup = transactionIds(backupFile);
    expect(ackedBefore.filter((id) => !inBackup.has(id))).toEqual([]);
    expect(report.tables.transactions).toBe(inBackup.size);
    // No temporary file is left beside it.
    expect(existsSync(`${backupFile}-wal`)).toBe(false);
  }, 120_000);

  it('restores into a fresh gateway that serves every acknowledged create', async () => {
    const freshDir = mkdtempSync(join(dir, 'fresh-'));
    const freshDb = join(freshDir, 'restored.db');
    const result = await runCommand(['restore', '--from', backupFile, '--json'], env(freshDb));
    expect(result.code).toBe(0);
    const report = onlyJson(result.stdout);
    expect(report).toMatchObject({ database: freshDb, restored_from: backupFile, kept: null });
    expect(integrity(freshDb)).toBe('ok');
    const restored = await startGateway(env(freshDb));
    try {
      for (const id of ackedBefore) {
        const res = await fetch(`${restored.url}${CSTATUS}?trxid=${id}`, { headers: { 'x-api-key': key } });
        expect(res.status, id).toBe(200);
      }
      const created = await fetch(`${restored.url}${CQRIS}?amount=90001`, { headers: { 'x-api-key': key } });
      expect(created.status).toBe(200);
    } finally {
      await restored.stop();
    }
  }, 120_000);

  it('refuses to restore while a gateway serves the database, and leaves it alone', async () => {
    const before = statSync(dbPath).size;
    const result = await runCommand(['restore', '--from', backupFile, '--json'], env(dbPath));
    expect(result.code).not.toBe(0);
    const answer = onlyJson(result.stdout);
    expect(answer.error.code).toBe('database_in_use');
    expect(answer.error.message).toMatch(/stop every gateway/);
    expect(statSync(dbPath).size).toBe(before);
    expect((await fetch(`${gateway!.url}/healthz`)).ok).toBe(true);
    // Without --json, a clear line on stderr.
    const plain = await runCommand(['restore', '--from', backupFile], env(dbPath));
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toMatch(/database_in_use/);
  }, 60_000);

  it('refuses a backup onto an existing file unless --force is given', async () => {
    const existing = join(dir, 'existing.db');
    writeFileSync(existing, 'keep me');
    const refused = await runCommand(['backup', '--to', existing, '--json'], env(dbPath));
    expect(refused.code).not.toBe(0);
    expect(onlyJson(refused.stdout).error).toMatchObject({ code: 'backup_exists' });
    expect(onlyJson(refused.stdout).error.message).toMatch(/--force/);
    expect(readFileSync(existing, 'utf8')).toBe('keep me');
    const forced = await runCommand(['backup', '--to', existing, '--force', '--json'], env(dbPath));
    expect(forced.code).toBe(0);
    expect(integrity(existing)).toBe('ok');
  }, 60_000);

  it('under umask 022 a backup, one written over a 0644 file with --force, a restored database and the one it replaced are all owner-only (0600)', async () => {
    const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
    const previous = process.umask(0o022);
    try {
      const fresh = join(dir, 'umask-backup.db');
      const made = await runCommand(['backup', '--to', fresh, '--json'], env(dbPath));
      expect(made.code, made.stdout).toBe(0);
      const older = join(dir, 'umask-older.db');
      writeFileSync(older, 'an old backup', { mode: 0o644 });
      chmodSync(older, 0o644);
      const forced = await runCommand(['backup', '--to', older, '--force', '--json'], env(dbPath));
      expect(forced.code, forced.stdout).toBe(0);
      expect(integrity(older)).toBe('ok');
      expect({ backup: mode(fresh), forced: mode(older) }).toEqual({ backup: '600', forced: '600' });
      // No temporary file is left, open or not.
      expect(readdirSync(dir).filter((n) => n.endsWith('.partial'))).toEqual([]);

      // A backup file that is 0644 (made before this was fixed, or copied about) restores owner-only, and
      // the database it replaces, kept beside it, is made owner-only too.
      chmodSync(fresh, 0o644);
      const restoreDir = mkdtempSync(join(dir, 'umask-restore-'));
      const restoredDb = join(restoreDir, 'gateway.db');
      copyFileSync(older, restoredDb);
      chmodSync(restoredDb, 0o644);
      const restored = await runCommand(['restore', '--from', fresh, '--json'], env(restoredDb));
      expect(restored.code, restored.stdout).toBe(0);
      const report = onlyJson(restored.stdout);
      expect(integrity(restoredDb)).toBe('ok');
      // Into a folder that is not there yet: the folder is made owner-only.
      const newDir = join(restoreDir, 'new', 'data');
      const intoNew = await runCommand(['restore', '--from', fresh, '--json'], env(join(newDir, 'gateway.db')));
      expect(intoNew.code, intoNew.stdout).toBe(0);
      expect({
        restored: mode(restoredDb),
        kept: mode(report.kept),
        newParent: mode(join(restoreDir, 'new')),
        newDir: mode(newDir),
        restoredIntoNew: mode(join(newDir, 'gateway.db')),
      }).toEqual({ restored: '600', kept: '600', newParent: '700', newDir: '700', restoredIntoNew: '600' });
    } finally {
      process.umask(previous);
    }
  }, 120_000);

  it('refuses to restore a file that is not a qris-gateway database', async () => {
    const other = join(dir, 'other.db');
    const db = new BetterSqlite3(other);
    db.exec('CREATE TABLE notes (x)');
    db.close();
    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, 'this is not a database at all, not even a little bit');
    for (const file of [other, garbage, join(dir, 'missing.db')]) {
      const result = await runCommand(['restore', '--from', file, '--json'], env(join(dir, 'never.db')));
      expect(result.code, file).not.toBe(0);
      expect(['not_a_gateway_database', 'backup_not_found']).toContain(onlyJson(result.stdout).error.code);
      expect(existsSync(join(dir, 'never.db'))).toBe(false);
    }
  }, 60_000);

  it('once the gateway is stopped, restores and keeps the replaced database beside it', async () => {
    await gateway!.stop();
    gateway = null;
    const rowsBefore = transactionIds(dbPath).size;
    const result = await runCommand(['restore', '--from', backupFile, '--json'], env(dbPath));
    expect(result.code).toBe(0);
    const report = onlyJson(result.stdout);
    expect(report.kept).toMatch(/gateway\.db\.before-restore-[0-9]{8}T[0-9]{9}Z$/);
    // The replaced database is whole in its one file (checkpointed before it was moved), with every row.
    expect(existsSync(`${report.kept}-wal`)).toBe(false);
    expect(integrity(report.kept)).toBe('ok');
    expect(transactionIds(report.kept).size).toBe(rowsBefore);
    expect(transactionIds(dbPath).size).toBe(report.tables.transactions);
    gateway = await startGateway(env(dbPath));
    const res = await fetch(`${gateway.url}${CSTATUS}?trxid=${ackedBefore[0]}`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
  }, 120_000);
});

describe('backup and restore on PostgreSQL', () => {
  // Refused before any connection is made, so any PostgreSQL URL shows it.
  const pgEnv = { DATABASE_URL: process.env.TEST_DATABASE_URL || 'postgres://nobody@127.0.0.1:1/none' };

  it('both commands say pg_dump is the tool, with a non-zero exit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qg-backup-pg-'));
    try {
      for (const args of [
        ['backup', '--to', join(dir, 'x.db'), '--json'],
        ['restore', '--from', join(dir, 'x.db'), '--json'],
      ]) {
        const result = await runCommand(args, pgEnv);
        expect(result.code, args[0]).not.toBe(0);
        const error = onlyJson(result.stdout).error;
        expect(error.code).toBe('use_pg_dump');
        expect(error.message).toMatch(/pg_dump/);
      }
      const plain = await runCommand(['backup', '--to', join(dir, 'x.db')], pgEnv);
      expect(plain.code).not.toBe(0);
      expect(plain.stderr).toMatch(/pg_dump/);
      expect(existsSync(join(dir, 'x.db'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
