import { sqlitePathFromUrl } from '../../storage/database.js';

/** Why a backup or restore command will not go ahead; the CLI prints the code and the message. */
export type BackupRefusal =
  | 'use_pg_dump'
  | 'backup_exists'
  | 'database_in_use'
  | 'not_a_gateway_database'
  | 'backup_not_found';

export class BackupRefused extends Error {
  constructor(
    readonly code: BackupRefusal,
    message: string,
  ) {
    super(message);
  }
}

/** The SQLite file behind DATABASE_URL; on PostgreSQL (or in memory) these commands are not the tool. */
export function sqliteFileOf(databaseUrl: string): string {
  const sqlitePath = sqlitePathFromUrl(databaseUrl);
  if (sqlitePath === null) {
    throw new BackupRefused(
      'use_pg_dump',
      'DATABASE_URL is PostgreSQL: back up with pg_dump (restore with pg_restore) or a base backup (pg_basebackup) and WAL archiving; qris-gateway backup and restore are for SQLite',
    );
  }
  if (sqlitePath === ':memory:')
    throw new BackupRefused(
      'backup_not_found',
      'DATABASE_URL is an in-memory SQLite database: there is no file to back up or restore',
    );
  return sqlitePath;
}
