import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { rethrowClassified, rethrowCommitFailure, unavailableError } from './unavailable.js';

/**
 * Wraps a Kysely dialect so that every connection acquired, every query and every transaction command
 * rethrows a failure of the database itself (unreachable, restarting, disk full) as the stable
 * `database_unavailable` / `storage_unavailable` error (unavailable.ts). Nothing else changes: results
 * and other errors (a unique violation that a service catches) pass through untouched.
 */
export function classifyingDialect(inner: Dialect): Dialect {
  return {
    createAdapter: () => inner.createAdapter(),
    createDriver: () => new ClassifyingDriver(inner.createDriver()),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createIntrospector: (db) => inner.createIntrospector(db),
  };
}

class ClassifyingConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // One extra settled promise per query, only on the success path's `then`: no async function frame.
    // Kysely's SQLite connection is not an async function: better-sqlite3's errors (SQLITE_FULL,
    // SQLITE_BUSY) leave it as a synchronous throw, which a `.catch` alone would never see.
    let pending: Promise<QueryResult<R>>;
    try {
      pending = this.inner.executeQuery<R>(compiledQuery);
    } catch (err) {
      return Promise.reject(unavailableError(err) ?? err);
    }
    return pending.catch(rethrowClassified);
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(compiledQuery, chunkSize);
    } catch (err) {
      rethrowClassified(err);
    }
  }
}

const unwrap = (connection: DatabaseConnection): DatabaseConnection =>
  connection instanceof ClassifyingConnection ? connection.inner : connection;

type Compile = QueryCompiler['compileQuery'];

class ClassifyingDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init().catch(rethrowClassified);
  }

  // One wrapper per connection, made once: SQLite has one connection and a pool reuses its own, so the
  // path of each query adds no allocation but the rejection handler.
  readonly #wrappers = new WeakMap<DatabaseConnection, ClassifyingConnection>();

  acquireConnection(): Promise<DatabaseConnection> {
    return this.inner.acquireConnection().then((connection) => {
      let wrapper = this.#wrappers.get(connection);
      if (wrapper === undefined) {
        wrapper = new ClassifyingConnection(connection);
        this.#wrappers.set(connection, wrapper);
      }
      return wrapper;
    }, rethrowClassified);
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(unwrap(connection), settings).catch(rethrowClassified);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    // SQLite's failed COMMIT changed nothing (a disk-full commit is rolled back); PostgreSQL's connection
    // lost mid-COMMIT leaves the outcome unknown (unavailable.ts, inDoubt).
    return this.inner.commitTransaction(unwrap(connection)).catch(rethrowCommitFailure);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(unwrap(connection)).catch(rethrowClassified);
  }

  savepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    return this.inner.savepoint!(unwrap(connection), name, compile).catch(rethrowClassified);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    return this.inner.rollbackToSavepoint!(unwrap(connection), name, compile).catch(rethrowClassified);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    return this.inner.releaseSavepoint!(unwrap(connection), name, compile).catch(rethrowClassified);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
