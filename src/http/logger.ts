import pino, { type DestinationStream, type Logger } from 'pino';
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
 * Pino writes each line through this scrubber, so no code path (a framework message quoting a URL, an
 * error that echoes input) can put a key into the log.
 */
export function createLogger(options: LoggerOptions): Logger {
  const target = options.destination ?? pino.destination({ dest: 1, sync: false });
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
