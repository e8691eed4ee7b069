// issue 25, parts 1 and 3: which driver failures become database_unavailable / storage_unavailable, and how
// a worker waits out an outage. The faults themselves are injected into real processes in
// test/integration/operations/postgres-outage.test.ts and disk-full.test.ts; this pins the rules.
import fc from 'fast-check';
import pino from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { unavailableError } from '../../src/storage/unavailable.js';
import { MAX_OUTAGE_BACKOFF_MS, OutageBackoff } from '../../src/rounds/outage-backoff.js';

const withCode = (code: string, message = 'boom') => Object.assign(new Error(message), { code });

describe('a failure of the database itself becomes a stable error', () => {
  it('PostgreSQL unreachable, restarting, or its connection cut, or SQLite held by another process: database_unavailable, Retry-After 2', () => {
    const cases = [
      withCode('ECONNREFUSED'),
      withCode('ECONNRESET'),
      withCode('57P01', 'terminating connection due to administrator command'),
      withCode('57P03', 'the database system is starting up'),
      withCode('08006'),
      withCode('53300', 'sorry, too many clients already'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      // SQLite's file held by another process past the busy timeout.
      withCode('SQLITE_BUSY', 'database is locked'),
      withCode('SQLITE_BUSY_SNAPSHOT', 'database is locked'),
    ];
    for (const err of cases) {
      const mapped = unavailableError(err)!;
      expect([mapped.code, mapped.retryAfter], err.message).toEqual(['database_unavailable', 2]);
      expect(mapped.message).not.toContain(err.message);
      expect(mapped.cause).toBe(err);
    }
  });

  it('a full disk or a failed write: storage_unavailable', () => {
    for (const code of [
      'SQLITE_FULL',
      'SQLITE_IOERR',
      'SQLITE_IOERR_WRITE',
      'SQLITE_IOERR_FSYNC',
      'ENOSPC',
      'EFBIG',
      'EDQUOT',
    ]) {
      expect(unavailableError(withCode(code))?.code, code).toBe('storage_unavailable');
    }
  });

  it('in doubt (lost while committing): the same code without Retry-After, and the message says to look', () => {
    const mapped = unavailableError(new Error('Connection terminated unexpectedly'), { inDoubt: true })!;
    expect(mapped.code).toBe('database_unavailable');
    expect(mapped.retryAfter).toBeUndefined();
    expect(mapped.message).toMatch(/may or may not/);
  });

  it('anything else passes through untouched: a constraint, a syntax error, an AppError, a non-error', () => {
    expect(unavailableError(withCode('23505', 'duplicate key'))).toBeNull();
    expect(unavailableError(withCode('SQLITE_CONSTRAINT_UNIQUE'))).toBeNull();
    expect(unavailableError(withCode('42601', 'syntax error'))).toBeNull();
    expect(unavailableError(new AppError('not_found', 'x'))).toBeNull();
    expect(unavailableError('ECONNREFUSED')).toBeNull();
    // Any other code, whatever its message, is not taken for an outage.
    fc.assert(
      fc.property(
        fc.string().filter((c) => !/^(E[A-Z]+|08|5[37]|SQLITE_(FULL|IOERR|BUSY))/.test(c)),
        fc.string().filter((m) => !/Connection terminated|timeout exceeded|not queryable/.test(m)),
        (code, message) => unavailableError(withCode(code, message)) === null,
      ),
    );
  });
});

describe('a worker waiting out an outage', () => {
  const logs = () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    return { lines, logger: pino(sink) };
  };
  const outage = () => new AppError('database_unavailable', 'x', { retryAfter: 2 });

  it('doubles its pause from the interval up to the cap, warns once, and says once that it resumed', () => {
    const { lines, logger } = logs();
    const backoff = new OutageBackoff(1000, logger, 'test worker');
    const pauses = Array.from({ length: 8 }, () => backoff.failed(outage()));
    expect(pauses).toEqual([
      1000,
      2000,
      4000,
      8000,
      16_000,
      MAX_OUTAGE_BACKOFF_MS,
      MAX_OUTAGE_BACKOFF_MS,
      MAX_OUTAGE_BACKOFF_MS,
    ]);
    backoff.succeeded();
    backoff.succeeded();
    expect(lines.map((l) => l.msg)).toEqual([
      'database unavailable: worker backing off until it answers',
      'database available again: worker resumed',
    ]);
    // The next outage starts from the interval again.
    expect(backoff.failed(outage())).toBe(1000);
  });

  it('an interval longer than the cap is kept; a failure that is not an outage is left to the caller', () => {
    const { logger } = logs();
    const hourly = new OutageBackoff(3_600_000, logger, 'backups');
    expect(hourly.failed(new AppError('storage_unavailable', 'x'))).toBe(3_600_000);
    expect(hourly.failed(new Error('a bug'))).toBeNull();
  });
});
