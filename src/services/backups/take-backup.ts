import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { copyDatabaseFile, type RowCounts, verifyDatabaseFile } from '../../storage/backup-files.js';
import { makeOwnerOnly } from '../../storage/owner-only.js';
import { BackupRefused, sqliteFileOf } from './backup-refused.js';

/** What `backup --json` prints. */
export interface BackupReport {
  file: string;
  bytes: number;
  tables: RowCounts;
}

/**
 * Where a copy is made before it is checked: beside the final name (same folder, so the rename is atomic)
 * and under a name no backup has, so a backup cut short never leaves a half file under the final name.
 */
export function temporaryNameFor(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.partial`);
}

/**
 * Puts a copy in place once it is verified: `make(tmp)` writes it, it is checked (integrity_check and the
 * migrations table), then renamed to `file`. Whatever fails, the temporary file is removed. The copy is
 * owner-only (0600): it holds every secret the database does. The rename puts the copy's own file in
 * `file`'s place, so a file replaced with --force does not keep its old mode.
 */
export async function verifiedCopy(file: string, make: (tmp: string) => Promise<void> | void): Promise<BackupReport> {
  const tmp = temporaryNameFor(file);
  try {
    await make(tmp);
    makeOwnerOnly(tmp);
    const tables = await verifyDatabaseFile(tmp);
    const bytes = statSync(tmp).size;
    renameSync(tmp, file);
    return { file, bytes, tables };
  } finally {
    rmSync(tmp, { force: true });
    rmSync(`${tmp}-journal`, { force: true });
  }
}

/**
 * `qris-gateway backup --to FILE`: a consistent copy of the SQLite database while gateways serve it
 * (VACUUM INTO in a worker thread; storage/backup-files.ts says why), verified before it is reported. An existing FILE is kept unless
 * `force` is given.
 */
export async function takeBackup(databaseUrl: string, to: string, options: { force: boolean }): Promise<BackupReport> {
  const source = sqliteFileOf(databaseUrl);
  const file = resolve(to);
  if (file === source) throw new BackupRefused('backup_exists', `${file} is the database itself`);
  if (existsSync(file) && !options.force) throw new BackupRefused('backup_exists', `${file} already exists; choose another name or pass --force to replace it`);
  if (!existsSync(source)) throw new BackupRefused('backup_not_found', `there is no database at ${source}`);
  return verifiedCopy(file, (tmp) => copyDatabaseFile(source, tmp));
}
