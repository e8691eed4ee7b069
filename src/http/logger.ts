import { writeSync } from 'node:fs';
import pino, { type DestinationStream, type Logger } from 'pino';
import { LogChunks } from './log-chunks.js';
import { scrubSecrets } from './redact.js';

export interface LoggerOptions {
  level: string;
  /** Where lines go; standard output when absent. Tests pass a collector. */
  destination?: { write(line: string): unknown };
}

/** A logger that writes nothing: the Deps of commands and tests that log nowhere, so no caller checks for null. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' }, { write: () => {} });
}

/**
 * Lines are handed out in chunks of about this many characters, or when LOG_FLUSH_MS have passed, whichever
 * comes first, and at exit (log-chunks.ts). Written line by line, each request's access line was its own
 * write(2) through libuv's thread pool: a thread wake-up and a system call per request. The cost: a process
 * killed with SIGKILL loses at most this long of log lines; nothing it answered or stored depends on them.
 */
const LOG_CHUNK_CHARS = 4096;
export const LOG_FLUSH_MS = 100;

/** Standard output through pino's asynchronous destination, in chunks. */
function standardOutput(): LogChunks {
  const boom = pino.destination({ dest: 1, sync: false });
  // Once ended, sonic-boom throws on every write. pino ends it only at exit today (its autoEnd is registered
  // for 'exit' alone), but its code also ends it at the first 'drain' after 'beforeExit', and a process can
  // log after that (a beforeExit listener that starts more work): lines then go out synchronously. The
  // property is set by sonic-boom (actualClose) but missing from its types.
  const ended = (): boolean => (boom as unknown as { destroyed?: boolean }).destroyed === true;
  return new LogChunks(
    {
      write: (chunk) => (ended() ? writeAllSync(1, chunk) : boom.write(chunk)),
      flushSync: () => {
        if (!ended()) boom.flushSync();
      },
      writeSync: (chunk) => writeAllSync(1, chunk),
    },
    LOG_CHUNK_CHARS,
    LOG_FLUSH_MS,
  );
}

/** Writes all of `text` to `fd`, however many writes it takes (a pipe may take part of it at a time). */
function writeAllSync(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let written = 0;
  let retries = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(fd, bytes, written);
    } catch (err) {
      // A non-blocking pipe that is full: its reader drains it. Wait a millisecond between tries (a bare
      // retry loop would use up its tries in microseconds) and give up after about a second.
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || ++retries > 1000) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

/**
 * Pino writes each line through this scrubber, so no code path (a framework message quoting a URL, an
 * error that echoes input) can put a key into the log.
 */
export function createLogger(options: LoggerOptions): Logger {
  const target = options.destination ?? standardOutput();
  const scrubbing: DestinationStream = { write: (line: string) => void target.write(scrubSecrets(line)) };
  return pino(
    {
      level: options.level,
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'req.headers.authorization',
          'headers["x-api-key"]',
          'headers.authorization',
        ],
        censor: '[REDACTED]',
      },
    },
    scrubbing,
  );
}
