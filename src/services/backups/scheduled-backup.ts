import { readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type BackupReport, copyDatabaseFile, verifiedCopy } from '../../storage/backup-files.js';
import { ensureOwnerOnlyDir, openToOthers } from '../../storage/owner-only.js';
import type { Deps } from '../deps.js';
import { sqliteFileOf } from './backup-refused.js';

/** The names scheduled backups are given; only files of this shape are ever removed from BACKUP_DIR. */
export const SCHEDULED_BACKUP_NAME = /^qris-gateway-backup-[0-9]{8}T[0-9]{9}Z\.db$/;

/** qris-gateway-backup-20261126T220501123Z.db: UTC, to the millisecond, so names sort in time order. */
function scheduledBackupName(at: number): string {
  return `qris-gateway-backup-${new Date(at).toISOString().replace(/[-:.]/g, '')}.db`;
}

/**
 * One scheduled backup of the gateway's SQLite database into `dir`: copied and checked in a worker thread
 * (storage/backup-files.ts says how and why), renamed into place; then the oldest beyond `keep` are removed. Counted in deps.state.backups either way; a failure is thrown to the caller.
 * The backup is owner-only (0600), and so is `dir` when it is made here (0700). A folder the operator made
 * is left as it is; `dirOpenToOthers` is then its mode in octal ("755") when others may read or enter it,
 * for the caller to warn about, else null.
 */
export async function takeScheduledBackup(
  deps: Deps,
  dir: string,
  keep: number,
): Promise<BackupReport & { removed: string[]; dirOpenToOthers: string | null }> {
  const stats = deps.state.backups;
  try {
    const source = sqliteFileOf(deps.config.databaseUrl);
    const folder = resolve(dir);
    const dirMode = ensureOwnerOnlyDir(folder);
    const report = await verifiedCopy(join(folder, scheduledBackupName(deps.now())), (tmp) =>
      copyDatabaseFile(source, tmp),
    );
    stats.successes++;
    stats.lastSuccessAt = deps.now();
    return {
      ...report,
      removed: removeOldBackups(folder, keep),
      dirOpenToOthers: openToOthers(dirMode) ? dirMode.toString(8) : null,
    };
  } catch (err) {
    stats.failures++;
    throw err;
  }
}

/** Removes the oldest scheduled backups beyond `keep` (by name, which is by time); never any other file. */
function removeOldBackups(dir: string, keep: number): string[] {
  const ours = readdirSync(dir)
    .filter((name) => SCHEDULED_BACKUP_NAME.test(name))
    .sort();
  const old = ours.slice(0, Math.max(0, ours.length - keep));
  for (const name of old) rmSync(join(dir, name), { force: true });
  return old;
}
