import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { DB } from '../storage/schema.js';
import type { Dialect } from '../storage/database.js';

/** What every service is given: the database, the settings and a clock (tests move time). */
export interface Deps {
  db: Kysely<DB>;
  dialect: Dialect;
  config: Config;
  now: () => number;
}
