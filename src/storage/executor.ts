import type { Transaction } from 'kysely';
import type { Database } from './database.js';
import type { DB } from './schema.js';

// What services hand to storage functions, named here so that services need nothing from Kysely.
/** The database outside any transaction: reads, and runInTransaction for writes. */
export type Db = Database;
/** The transaction of one unit of work (runInTransaction), for its reads and writes. */
export type Tx = Transaction<DB>;
/** Either: a query that may run inside a unit of work or on its own. */
export type Executor = Db | Tx;
