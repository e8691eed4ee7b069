import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type BackupReport, copyDatabaseFile, verifiedCopy } from '../../storage/backup-files.js';
import { BackupRefused, sqliteFileOf } from './backup-refused.js';

/**
 * `qris-gateway backup --to FILE`: a consistent copy of the SQLite database while gateways serve it
 * (VACUUM INTO in a worker thread; storage/backup-files.ts says why), verified before it is reported. An existing FILE is kept unless
 * `force` is given.
 */
export async function takeBackup(databaseUrl: string, to: string, options: { force: boolean }): Promise<BackupReport> {
  const source = sqliteFileOf(databaseUrl);
  const file = resolve(to);
  if (file === source) throw new BackupRefused('backup_exists', `${file} is the database itself`);
  if (existsSync(file) && !options.force)
    throw new BackupRefused(
      'backup_exists',
      `${file} already exists; choose another name or pass --force to replace it`,
    );
  if (!existsSync(source)) throw new BackupRefused('backup_not_found', `there is no database at ${source}`);
  return verifiedCopy(file, (tmp) => copyDatabaseFile(source, tmp));
}
