// The database "out of reach": statements fail as the storage layer fails when the database cannot be
// reached (database_unavailable, Retry-After), while `on` is true. sessionOutage: the console's session
// reads only; databaseOutage: every statement the app's database object runs. Done on that object
// (statement-hook.ts), not by mocking a module. Closing the connection would not do: Kysely's "driver has
// already been destroyed" is no outage but a bug of ours, a 500.
import type { Kysely } from 'kysely';
import { onTestFinished } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import type { DB } from '../../src/storage/schema.js';
import { hookStatements } from './statement-hook.js';

export interface Outage {
  on: boolean;
  restore(): void;
}

function outage(db: Kysely<DB>, scope: 'test' | 'file', affects: (sql: string) => boolean): Outage {
  const state = { on: false, restore: () => {} };
  state.restore = hookStatements(db, {
    before(sql) {
      if (state.on && affects(sql))
        throw new AppError('database_unavailable', 'the database is not reachable just now', { retryAfter: 2 });
    },
  });
  if (scope === 'test') onTestFinished(() => state.restore());
  return state;
}

export function sessionOutage(db: Kysely<DB>, scope: 'test' | 'file' = 'test'): Outage {
  return outage(db, scope, (sql) => sql.includes('"sessions"'));
}

export function databaseOutage(db: Kysely<DB>, scope: 'test' | 'file' = 'test'): Outage {
  return outage(db, scope, () => true);
}
