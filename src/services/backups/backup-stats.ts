/** What /metrics shows of this process's scheduled backups (kept in the services' state). */
export interface BackupStats {
  /** When the last scheduled backup was verified and in place (ms since the epoch), null before the first. */
  lastSuccessAt: number | null;
  successes: number;
  failures: number;
}

export const newBackupStats = (): BackupStats => ({ lastSuccessAt: null, successes: 0, failures: 0 });
