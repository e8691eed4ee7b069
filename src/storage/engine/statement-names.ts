import { createHash } from 'node:crypto';

/**
 * PostgreSQL's counterpart of the SQLite statement cache. node-postgres sends every parameterised query
 * as an unnamed statement, which the server parses and plans each time: for a primary-key read that
 * was half of the server's CPU (about 160 µs of 230 here). A named statement is parsed once per
 * connection and then only bound and executed.
 *
 * A text's name is a hash of the text itself, so it does not depend on which statement this process
 * happened to run first, and two databases (two gateways in one process) share nothing: each Database
 * keeps its own StatementNames. The hash is taken once per distinct text; later calls are one Map look-up.
 */

/** How many distinct statement texts get a name (variable IN-lists make new texts; the rest run unnamed). */
const NAMED_STATEMENT_LIMIT = 300;
/**
 * Of those, how many may go to bulk texts: statements with more than BULK_PARAMETERS values are the
 * multi-row inserts and long IN-lists of batched creates, whose text changes with the batch size. One
 * short bench run named 227 texts, most of them bulk; without this share a flash sale right after start
 * could spend every name before the payment statements first run, leaving them unnamed for good.
 */
const BULK_NAME_LIMIT = 100;
const BULK_PARAMETERS = 20;
const NAMEABLE = /^\s*(select|insert|update|delete|with)\b/i;

/** The name a statement text gets: `qg_` and 16 hex digits of its SHA-1 (64 bits; PostgreSQL allows 63 characters). */
export function statementNameOf(text: string): string {
  return `qg_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
}

/**
 * The names one database's connections use. Names are permanent on a connection (node-postgres refuses
 * to reuse one for other text), so only the first NAMED_STATEMENT_LIMIT distinct texts get one, and bulk
 * texts at most BULK_NAME_LIMIT of them; the hot statements are among the first a server runs.
 * Transaction control and other commands stay unnamed.
 */
export class StatementNames {
  readonly #names = new Map<string, string>();
  readonly #taken = new Set<string>();
  #bulk = 0;

  name(text: string, parameterCount = 0): string | undefined {
    const known = this.#names.get(text);
    if (known !== undefined) return known;
    if (this.#names.size >= NAMED_STATEMENT_LIMIT || !NAMEABLE.test(text)) return undefined;
    const bulk = parameterCount > BULK_PARAMETERS;
    if (bulk && this.#bulk >= BULK_NAME_LIMIT) return undefined;
    const name = statementNameOf(text);
    // Two texts with one hash cannot both have the name; the second runs unnamed (it does not happen in
    // practice, but a clash would make node-postgres refuse the query).
    if (this.#taken.has(name)) return undefined;
    if (bulk) this.#bulk += 1;
    this.#names.set(text, name);
    this.#taken.add(name);
    return name;
  }
}
