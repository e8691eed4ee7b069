import { AppError } from '../domain/errors.js';
import { BackupRefused } from '../services/backups/backup-refused.js';
import { StartupError } from '../startup-error.js';

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

export const processIo: Io = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/** With --json a command prints exactly one JSON object on stdout; otherwise readable lines. */
export function emit(io: Io, json: boolean, value: object, human: () => string): void {
  io.out(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}

/** A listing: `{"items": [...]}` with --json, else one line per item (or `empty` when there are none). */
export function emitItems<T>(
  io: Io,
  json: boolean,
  items: readonly T[],
  empty: string,
  line: (item: T) => string,
): void {
  emit(io, json, { items }, () => (items.length === 0 ? empty : items.map((item) => line(item)).join('\n')));
}

export function emitError(io: Io, json: boolean, err: unknown): void {
  const e =
    err instanceof AppError
      ? { code: err.code, message: err.message, ...(err.param ? { param: err.param } : {}) }
      : err instanceof BackupRefused || err instanceof StartupError
        ? { code: err.code, message: err.message }
        : { code: 'internal_error', message: err instanceof Error ? err.message : String(err) };
  if (json) io.out(`${JSON.stringify({ error: e })}\n`);
  else io.err(`error: ${e.code}: ${e.message}\n`);
}
