// Issue 25, part 5: scheduled backups inside a real gateway process (BACKUP_DIR, BACKUP_INTERVAL_HOURS,
// BACKUP_KEEP): verified files appear, only the newest BACKUP_KEEP of its own are kept, /metrics shows the
// last success; a backup that cannot be written is logged and counted while the gateway keeps serving.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEDULED_BACKUP_NAME } from '../../../src/services/backups/scheduled-backup.js';
import { CQRIS } from '../../helpers/api.js';
import { freshDatabaseUrl, onPostgres, seedSqliteFile } from '../../helpers/context.js';
import { startGateway, type GatewayProcess } from '../../helpers/processes.js';

const env = (db: string, extra: Record<string, string>) => ({
  DATABASE_URL: `sqlite:${db}`,
  DEMO_MERCHANT: 'false',
  RATE_LIMIT_PER_MINUTE: '0',
  // 0.0002 h is 0.72 s.
  BACKUP_INTERVAL_HOURS: '0.0002',
  ...extra,
});

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`${name} is not on /metrics`);
  return Number(line.slice(name.length + 1));
}

async function until<T>(what: string, check: () => Promise<T | null> | T | null, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(onPostgres)('scheduled backups (SQLite, a real gateway process)', () => {
  let dir: string;
  let dbPath: string;
  let key: string;
  const gateways: GatewayProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-backup-scheduled-'));
    dbPath = join(dir, 'gateway.db');
    key = await seedSqliteFile(dbPath);
  });

  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes verified backups, keeps the newest BACKUP_KEEP of its own and shows the last success on /metrics', async () => {
    const backups = join(dir, 'backups');
    const started = Date.now() / 1000;
    // Files the feature did not make are never removed, whatever their age or name.
    const own = (): string[] =>
      existsSync(backups) ? readdirSync(backups).filter((n) => SCHEDULED_BACKUP_NAME.test(n)) : [];
    const gateway = await startGateway(env(dbPath, { BACKUP_DIR: backups, BACKUP_KEEP: '2' }));
    gateways.push(gateway);
    await until('a first backup', () => (own().length > 0 ? true : null));
    writeFileSync(join(backups, 'notes.db'), 'mine');
    writeFileSync(join(backups, 'qris-gateway-backup-old.db'), 'mine too');
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${gateway.url}${CQRIS}?amount=${20_000 + i}`, { headers: { 'x-api-key': key } });
      expect(res.status).toBe(200);
    }
    // Several more rounds, each of which removes the oldest beyond two; the two kept are then both named
    // (started) after the creates were answered.
    const before = new Set(own());
    const seen = new Set<string>();
    await until('three more backups made', () => {
      for (const n of own()) if (!before.has(n)) seen.add(n);
      return seen.size >= 3 ? true : null;
    });
    await until('two kept', () => (own().length === 2 ? true : null));
    expect(existsSync(join(backups, 'notes.db'))).toBe(true);
    expect(existsSync(join(backups, 'qris-gateway-backup-old.db'))).toBe(true);
    // Each kept file is a whole, verified database holding the creates made before it.
    const newest = own().sort().at(-1)!;
    const copy = new BetterSqlite3(join(backups, newest), { readonly: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
      expect((copy.prepare('SELECT count(*) AS n FROM transactions').get() as { n: number }).n).toBe(5);
    } finally {
      copy.close();
    }
    // No temporary file is left behind once a round is over (a round may be running: wait for a moment without one).
    await until('no partial file', () => (readdirSync(backups).some((n) => n.endsWith('.partial')) ? null : true));
    const last = await metric(gateway.url, 'qris_backup_last_success_timestamp');
    expect(last).toBeGreaterThanOrEqual(Math.floor(started));
    expect(last).toBeLessThanOrEqual(Date.now() / 1000 + 1);
    expect(await metric(gateway.url, 'qris_backup_failures_total')).toBe(0);
    await gateway.stop();
  }, 120_000);

  it('under umask 022: the database it makes with its -wal and -shm, BACKUP_DIR and every backup are owner-only', async () => {
    const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
    const previous = process.umask(0o022);
    try {
      const home = join(dir, 'umask');
      const data = join(home, 'data');
      const db = join(data, 'gateway.db');
      // Neither the database's folder nor its file is there: the gateway's own opening code makes them.
      const seeded = await seedSqliteFile(db);
      const backups = join(home, 'backups', 'nightly');
      const gateway = await startGateway(env(db, { BACKUP_DIR: backups }));
      gateways.push(gateway);
      const own = () => (existsSync(backups) ? readdirSync(backups).filter((n) => SCHEDULED_BACKUP_NAME.test(n)) : []);
      await until('a first backup', () => (own().length > 0 ? true : null));
      const res = await fetch(`${gateway.url}${CQRIS}?amount=41000`, { headers: { 'x-api-key': seeded } });
      expect(res.status).toBe(200);
      await until('a backup after the write', () => (own().length > 1 ? true : null));

      // The gateway is serving: its log and shared-memory index are there, with the database's mode.
      const backupModes = readdirSync(backups)
        .filter((n) => SCHEDULED_BACKUP_NAME.test(n))
        .map((n) => mode(join(backups, n)));
      expect({
        data: mode(data),
        db: mode(db),
        wal: mode(`${db}-wal`),
        shm: mode(`${db}-shm`),
        backupsParent: mode(join(home, 'backups')),
        backupDir: mode(backups),
        backups: [...new Set(backupModes)],
      }).toEqual({
        data: '700',
        db: '600',
        wal: '600',
        shm: '600',
        backupsParent: '700',
        backupDir: '700',
        backups: ['600'],
      });
      // Every other file in it too, a backup in the making (and its journal) included.
      for (const name of readdirSync(backups)) {
        const m = statSync(join(backups, name), { throwIfNoEntry: false });
        if (m) expect((m.mode & 0o777).toString(8), name).toBe('600');
      }
      await gateway.stop();

      // A database an earlier version left 0644 is made owner-only at the next start; a BACKUP_DIR of the
      // operator's that others may enter is left as it is, said once in the log, its backups owner-only.
      chmodSync(db, 0o644);
      const shared = join(home, 'shared');
      mkdirSync(shared, { mode: 0o755 });
      chmodSync(shared, 0o755);
      const again = await startGateway(env(db, { BACKUP_DIR: shared }));
      gateways.push(again);
      await until('two backups in the shared folder', () =>
        readdirSync(shared).filter((n) => SCHEDULED_BACKUP_NAME.test(n)).length > 1 ? true : null,
      );
      expect(mode(db)).toBe('600');
      expect(mode(shared)).toBe('755');
      for (const name of readdirSync(shared).filter((n) => SCHEDULED_BACKUP_NAME.test(n)))
        expect(mode(join(shared, name)), name).toBe('600');
      expect(again.output().match(/BACKUP_DIR is open to other users/g)).toHaveLength(1);
      await again.stop();
    } finally {
      process.umask(previous);
    }
  }, 120_000);

  it('logs and counts a backup that cannot be written, and keeps serving', async () => {
    // BACKUP_DIR is a file: every round fails.
    const notADir = join(dir, 'a-file');
    writeFileSync(notADir, 'not a folder');
    const gateway = await startGateway(env(dbPath, { BACKUP_DIR: notADir, LOG_LEVEL: 'warn' }));
    gateways.push(gateway);
    await until('two failures counted', async () =>
      (await metric(gateway.url, 'qris_backup_failures_total')) >= 2 ? true : null,
    );
    expect(gateway.output()).toMatch(/scheduled backup failed/);
    expect(await metric(gateway.url, 'qris_backup_last_success_timestamp')).toBe(0);
    expect((await fetch(`${gateway.url}/healthz`)).ok).toBe(true);
    const res = await fetch(`${gateway.url}${CQRIS}?amount=30001`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    await gateway.stop();
  }, 120_000);
});

describe.skipIf(!onPostgres)('scheduled backups on PostgreSQL', () => {
  it('with BACKUP_DIR set, the server says once that pg_dump is the tool and makes no files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qg-backup-pg-'));
    const fresh = await freshDatabaseUrl(dir);
    const backups = join(dir, 'backups');
    const gateway = await startGateway({
      DATABASE_URL: fresh.url,
      DEMO_MERCHANT: 'false',
      BACKUP_DIR: backups,
      BACKUP_INTERVAL_HOURS: '0.0002',
      LOG_LEVEL: 'warn',
    });
    try {
      await new Promise((r) => setTimeout(r, 2000));
      const said = gateway.output().match(/pg_dump/g) ?? [];
      expect(said).toHaveLength(1);
      expect(existsSync(backups)).toBe(false);
      expect((await fetch(`${gateway.url}/healthz`)).ok).toBe(true);
    } finally {
      await gateway.stop();
      await fresh.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
