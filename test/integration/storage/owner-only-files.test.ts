// Issue 35, finding 7: the files that hold the gateway's secrets are its user's alone whatever the umask,
// since a mode asked for at creation is narrowed by the umask but never widened: a umask of 0002 would
// leave files group-writable, one of 0277 a folder its owner cannot enter. Folders made here are 0700,
// files 0600, and SQLite's -wal and -shm take the database file's mode.
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/storage/database.js';
import { createOwnerOnlyFile, ensureOwnerOnlyDir, tightenToOwnerOnly } from '../../../src/storage/owner-only.js';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('owner-only files and folders', () => {
  let dir: string;
  let umask: number;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'qg-owner-only-'));
    umask = process.umask();
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  for (const mask of [0o022, 0o002, 0o000, 0o277]) {
    it(`under umask ${mask.toString(8).padStart(4, '0')}: new folders are 0700, new files 0600, and SQLite's database with its -wal and -shm 0600`, async () => {
      process.umask(mask);
      const nested = join(dir, 'a', 'b', 'c');
      expect(ensureOwnerOnlyDir(nested)).toBe(0o700);
      expect([mode(join(dir, 'a')), mode(join(dir, 'a', 'b')), mode(nested)]).toEqual(['700', '700', '700']);

      const file = join(nested, 'secret');
      createOwnerOnlyFile(file);
      expect(mode(file)).toBe('600');
      expect(() => createOwnerOnlyFile(file)).toThrow(/EEXIST/);

      const dbFile = join(dir, 'data', 'gateway.db');
      const db = openDatabase(`sqlite:${dbFile}`);
      try {
        await db.schema.createTable('notes').addColumn('x', 'text').execute();
        await db.runInTransaction((trx) => sql`insert into notes (x) values ('a')`.execute(trx));
        expect({
          dir: mode(join(dir, 'data')),
          db: mode(dbFile),
          wal: mode(`${dbFile}-wal`),
          shm: mode(`${dbFile}-shm`),
        }).toEqual({
          dir: '700',
          db: '600',
          wal: '600',
          shm: '600',
        });
        expect(db.filesOpenToOthers).toEqual([]);
      } finally {
        await db.close();
      }
    });
  }

  it('a database and -wal an earlier version left 0644 are made 0600 when opened; an existing folder keeps its mode', async () => {
    process.umask(0o022);
    const data = join(dir, 'shared');
    ensureOwnerOnlyDir(data);
    chmodSync(data, 0o755);
    const dbFile = join(data, 'gateway.db');
    const first = openDatabase(`sqlite:${dbFile}`);
    await first.schema.createTable('notes').addColumn('x', 'text').execute();
    await first.close();
    chmodSync(dbFile, 0o644);
    writeFileSync(`${dbFile}-wal`, '', { mode: 0o644 });
    const again = openDatabase(`sqlite:${dbFile}`);
    try {
      expect({ dir: mode(data), db: mode(dbFile), wal: mode(`${dbFile}-wal`) }).toEqual({
        dir: '755',
        db: '600',
        wal: '600',
      });
    } finally {
      await again.close();
    }
    // Only files open to others are touched; a missing one is no error.
    writeFileSync(join(data, 'loose'), 'x', { mode: 0o640 });
    chmodSync(join(data, 'loose'), 0o640);
    expect(tightenToOwnerOnly([join(data, 'loose'), join(data, 'missing')])).toEqual([]);
    expect(mode(join(data, 'loose'))).toBe('600');
  });
});
