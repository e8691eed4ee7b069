import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  closeIfUnused,
  copyFileOwnerOnly,
  NotAGatewayDatabase,
  type RowCounts,
  temporaryNameFor,
  verifyDatabaseFile,
} from '../../storage/backup-files.js';
import { ensureOwnerOnlyDir, tightenToOwnerOnly } from '../../storage/owner-only.js';
import { BackupRefused, sqliteFileOf } from './backup-refused.js';

/** What `restore --json` prints. */
export interface RestoreReport {
  database: string;
  restored_from: string;
  /** Where the replaced database was kept (null when there was none). */
  kept: string | null;
  bytes: number;
  tables: RowCounts;
}

/**
 * `qris-gateway restore --from FILE`: puts a backup in the place of the SQLite database. The backup is
 * copied beside the database and checked there first (the given file is never changed). Refused while
 * any process has the database open (storage/backup-files.ts, closeIfUnused, says how that is known);
 * otherwise the log is checkpointed into the file and -wal and -shm are gone, so the replaced database is
 * kept whole as `<db>.before-restore-<time>`, one file. Both hold every secret: the restored database is
 * owner-only (0600) whatever the backup file's mode, as is the kept one (it may date from a version that
 * left it 0644), and the database's folder when it is made here (0700).
 */
export async function restoreBackup(databaseUrl: string, from: string, now: number): Promise<RestoreReport> {
  const target = sqliteFileOf(databaseUrl);
  const source = resolve(from);
  if (!existsSync(source) || !statSync(source).isFile())
    throw new BackupRefused('backup_not_found', `there is no backup file at ${source}`);
  if (source === target) throw new BackupRefused('backup_not_found', `${source} is the database itself`);
  ensureOwnerOnlyDir(dirname(target));
  const tmp = temporaryNameFor(target);
  try {
    await copyFileOwnerOnly(source, tmp);
    let tables: RowCounts;
    try {
      tables = await verifyDatabaseFile(tmp);
    } catch (err) {
      if (err instanceof NotAGatewayDatabase)
        throw new BackupRefused('not_a_gateway_database', err.message.replace(tmp, source));
      throw err;
    }
    let kept: string | null = null;
    if (existsSync(target)) {
      if (closeIfUnused(target) === 'in_use') {
        throw new BackupRefused(
          'database_in_use',
          `${target} is open in another process (a gateway serving it, or a command): stop every gateway using it, then restore`,
        );
      }
      // Between that check and these renames a gateway could start; the window is two renames long.
      kept = `${target}.before-restore-${new Date(now).toISOString().replace(/[-:.]/g, '')}`;
      // Made owner-only before it moves (one another user owns is left as it is: nothing fails half-way).
      tightenToOwnerOnly([target, `${target}-wal`, `${target}-shm`]);
      renameSync(target, kept);
      // Empty after the checkpoint and close; an -shm left by a crash is only an index, never data.
      for (const side of ['-wal', '-shm'])
        if (existsSync(`${target}${side}`)) renameSync(`${target}${side}`, `${kept}${side}`);
    }
    renameSync(tmp, target);
    return { database: target, restored_from: source, kept, bytes: statSync(target).size, tables };
  } finally {
    rmSync(tmp, { force: true });
    rmSync(`${tmp}-journal`, { force: true });
  }
}
