import { AppError } from '../domain/errors.js';

// What a failure of the database itself (not of one query's content) looks like, on each driver, and the
// stable error it becomes. Every query, connection and transaction command passes through
// unavailable-driver.ts, which rethrows such failures as these AppErrors, so the API, the pages, the
// SNAP routes, the CLI and the workers all see `database_unavailable` or `storage_unavailable` rather
// than a driver's message, and a client can tell "try again shortly" from a bug.

/** Seconds a client is told to wait before retrying. Short: recovery is automatic once the cause is gone. */
export const UNAVAILABLE_RETRY_AFTER = 2;

// Socket-level failures reaching PostgreSQL (refused while it is down, reset when it is killed, no route).
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

// SQLSTATEs that say the server, not the statement, is the problem: class 08 (connection exception),
// 57P01-57P03 (terminated by an administrator, a crash, or not yet accepting connections, as right after
// a restart), 53300 (too many connections) and 57P05 (idle session timeout).
const SERVER_STATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '57P05', '53300']);

// node-postgres reports a dropped connection or a connect timeout with a plain Error and these words.
const PG_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

// The disk is full or the file may grow no further (SQLITE_FULL; an fsync's or write's ENOSPC; EFBIG
// under a file-size limit, which SQLite reports as an I/O error), or it failed to read or write at all.
const DISK_CODES: ReadonlySet<string> = new Set(['SQLITE_FULL', 'ENOSPC', 'EFBIG', 'EDQUOT']);

// SQLite's file held by another process past the busy timeout (5 s, database.ts): SQLITE_BUSY and its
// extended codes. The statement was not run; the same one succeeds once the other process lets go.
const isSqliteBusy = (code: string) => code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_');

export function isDatabaseUnreachable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (NETWORK_CODES.has(code) || SERVER_STATES.has(code) || code.startsWith('08') || isSqliteBusy(code))
  )
    return true;
  return PG_MESSAGES.some((words) => err.message.includes(words));
}

export function isStorageFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && (DISK_CODES.has(code) || code.startsWith('SQLITE_IOERR'));
}

/**
 * The public error for a failure of the database or its disk, or null when the failure is anything else
 * (a constraint, a bug), which callers handle as before. The driver's own error is kept as `cause` for
 * the log.
 *
 * `inDoubt`: the failure struck while a commit was on its way (PostgreSQL's connection lost during
 * COMMIT, or SQLite's log flush failing after it), so the change may have been saved. Such an answer
 * carries no Retry-After, the gateway's sign that it did nothing, and says to look before repeating.
 */
export function unavailableError(err: unknown, options: { inDoubt?: boolean } = {}): AppError | null {
  if (err instanceof AppError) return null;
  const code = isDatabaseUnreachable(err)
    ? 'database_unavailable'
    : isStorageFailure(err)
      ? 'storage_unavailable'
      : null;
  if (code === null) return null;
  const what =
    code === 'database_unavailable'
      ? 'the database is not reachable just now'
      : 'the server cannot write to its storage just now';
  const error = options.inDoubt
    ? new AppError(
        code,
        `${what}, and it failed while saving: the change may or may not have been made; read it back (by ref) or repeat it with the same Idempotency-Key`,
      )
    : new AppError(code, `${what}; nothing was changed; try again shortly`, { retryAfter: UNAVAILABLE_RETRY_AFTER });
  return Object.assign(error, { cause: err });
}

/** Rethrows a database or disk failure as its public error, anything else as it is. */
export function rethrowClassified(err: unknown): never {
  throw unavailableError(err) ?? err;
}

/** The same for a failure during a commit: a lost connection leaves the outcome unknown. */
export function rethrowCommitFailure(err: unknown): never {
  throw unavailableError(err, { inDoubt: isDatabaseUnreachable(err) }) ?? err;
}
