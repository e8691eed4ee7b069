// A start-up refusal the operator can act on: a bad setting, a malformed .env file, a port already taken.
// The CLI prints its code and message as they are (never as internal_error) and exits non-zero.
export type StartupErrorCode = 'invalid_setting' | 'invalid_env_file' | 'port_in_use';

export class StartupError extends Error {
  constructor(
    readonly code: StartupErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'StartupError';
  }
}
