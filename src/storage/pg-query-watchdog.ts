import type pg from 'pg';

/**
 * Ends a PostgreSQL connection whose query has run longer than `timeoutMs`, so a server that stops
 * answering (frozen, a network that drops packets without a reset) costs a request a bounded wait
 * instead of holding it, and its pool connection, for ever. Ending the socket fails the query with
 * "Connection terminated", which storage/unavailable.ts turns into database_unavailable (in doubt if it
 * was a COMMIT), and the pool drops the connection.
 *
 * Nothing is added to a query's own path: every second or so the watchdog looks at each connection's
 * query in flight (node-postgres keeps it as `_activeQuery`) and ends the connection only if the same
 * query has been in flight since a look at least `timeoutMs` earlier. A query is thus ended between
 * timeoutMs and timeoutMs plus one interval after it started.
 */
export class QueryWatchdog {
  readonly #clients = new Map<pg.Client, { query: unknown; since: number }>();
  readonly #timer: NodeJS.Timeout;
  #suspended = 0;

  constructor(
    private readonly timeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#timer = setInterval(() => this.check(), Math.max(50, Math.min(1000, Math.floor(timeoutMs / 2))));
    this.#timer.unref();
  }

  watch(client: pg.Client): void {
    this.#clients.set(client, { query: null, since: 0 });
    client.once('end', () => this.#clients.delete(client));
  }

  /**
   * Lifts the timeout until the returned function is called: for the migrations at start, whose
   * statements (an index on a large table) and whose wait for another instance's migrations may rightly
   * take longer. A query then in flight is timed again from that call.
   */
  suspend(): () => void {
    this.#suspended++;
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      this.#suspended--;
    };
  }

  /** Ends every connection whose query in flight has outlived the timeout; returns how many. */
  check(): number {
    const now = this.now();
    let ended = 0;
    for (const [client, seen] of this.#clients) {
      const query = (client as unknown as { _activeQuery?: unknown })._activeQuery ?? null;
      if (query === null || query !== seen.query || this.#suspended > 0) {
        seen.query = query;
        seen.since = now;
        continue;
      }
      if (now - seen.since < this.timeoutMs) continue;
      ended += 1;
      this.#clients.delete(client);
      const stream = (client as unknown as { connection?: { stream?: { destroy(err?: Error): void } } }).connection
        ?.stream;
      stream?.destroy();
    }
    return ended;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#clients.clear();
  }
}
