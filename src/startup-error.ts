// A start-up refusal the operator can act on: a bad setting, a malformed .env file, a port already taken,
// a migration that failed (the database left as it was), a database a newer release migrated.
// The CLI prints its code and message as they are (never as internal_error) and exits non-zero.
export type StartupErrorCode =
  | 'invalid_setting'
  | 'invalid_env_file'
  | 'port_in_use'
  | 'migration_failed'
  | 'database_too_new';

export class StartupError extends Error {
  constructor(
    readonly code: StartupErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'StartupError';
  }
}
