import { takeScheduledBackup } from '../services/backups/scheduled-backup.js';
import type { Deps } from '../services/deps.js';
import { runEvery, type Worker } from '../rounds/run-every.js';

/**
 * Scheduled backups (BACKUP_DIR, BACKUP_INTERVAL_HOURS, BACKUP_KEEP): one at start, then one every
 * interval. A failed one is counted (qris_backup_failures_total) and logged, and the next tick tries
 * again. SQLite only: on PostgreSQL with BACKUP_DIR set, one log line says pg_dump is the tool.
 */
export function startBackupScheduler(deps: Deps): Worker | null {
  const { backupDir, backupIntervalHours, backupKeep } = deps.config;
  if (backupDir === null) return null;
  if (deps.db.dialect !== 'sqlite') {
    deps.logger.warn(
      { backupDir },
      'BACKUP_DIR is set but the database is PostgreSQL: no scheduled backups are made; back up with pg_dump or base backups (pg_basebackup)',
    );
    return null;
  }
  // Said once per start, not at every round.
  let warnedOpenDir = false;
  return runEvery(
    Math.round(backupIntervalHours * 3_600_000),
    async () => {
      const made = await takeScheduledBackup(deps, backupDir, backupKeep);
      deps.logger.info({ file: made.file, bytes: made.bytes, removed: made.removed }, 'scheduled backup made');
      if (made.dirOpenToOthers !== null && !warnedOpenDir) {
        warnedOpenDir = true;
        deps.logger.warn(
          { backupDir, mode: made.dirOpenToOthers },
          'BACKUP_DIR is open to other users: the backups in it are owner-only (0600), but others can see their names and sizes; chmod 700 it',
        );
      }
    },
    deps.logger,
    'scheduled backup failed',
  );
}
