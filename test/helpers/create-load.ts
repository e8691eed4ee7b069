// A create load on keep-alive connections (node:http Agent), classifying how each request ended, for the
// shutdown tests: what matters is whether a client can tell if its create was made.
import http from 'node:http';

export type Outcome =
  /** A complete 2xx with the created transaction. */
  | { kind: 'created'; trxid: string }
  /** A complete 503 that says the connection is closing: nothing was made, safe to retry. */
  | { kind: 'refused-503' }
  /** The connection was refused: the request was never sent, safe to retry. */
  | { kind: 'refused-connect' }
  /**
   * A new connection (never a reused one) reset before any byte of an answer: the kernel had completed
   * its handshake in the listen backlog, and closing the listening socket resets every connection still
   * waiting there, unaccepted, so the server never saw the request. TCP gives no way to drain that
   * backlog at the instant of closing; a client cannot tell this from a refusal and retries the same way.
   */
  | { kind: 'refused-backlog' }
  /** The connection broke after the request was sent: the client cannot tell what happened. */
  | { kind: 'reset'; detail: string }
  /** Any other answer (a wrong status, a 503 on a connection kept open, a broken body). */
  | { kind: 'other'; detail: string };

export interface LoadReport {
  outcomes: Outcome[];
  created: string[];
  count(kind: Outcome['kind']): number;
}

/** One create on the agent's connections (a reused keep-alive socket whenever one is free). */
export function createOnce(agent: http.Agent, base: string, key: string): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    // A fresh amount each time, so no amount runs out of unique codes.
    const amount = 1000 + Math.floor(Math.random() * 5_000_000);
    const req = http.request(
      `${base}/api/payment-gateway/cqris?amount=${amount}`,
      { agent, headers: { 'x-api-key': key } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('aborted', () => finish({ kind: 'reset', detail: `body cut after status ${res.statusCode}` }));
        res.on('error', (err) =>
          finish({ kind: 'reset', detail: `body cut: ${(err as NodeJS.ErrnoException).code ?? err.message}` }),
        );
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) {
            try {
              const trxid = (JSON.parse(text) as { data: { trxid: string } }).data.trxid;
              finish(
                typeof trxid === 'string'
                  ? { kind: 'created', trxid }
                  : { kind: 'other', detail: `2xx without trxid: ${text}` },
              );
            } catch {
              finish({ kind: 'other', detail: `2xx with a broken body: ${text.slice(0, 200)}` });
            }
          } else if (status === 503 && /\bclose\b/i.test(String(res.headers.connection))) {
            finish({ kind: 'refused-503' });
          } else {
            finish({ kind: 'other', detail: `${status} connection=${res.headers.connection}: ${text.slice(0, 200)}` });
          }
        });
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') finish({ kind: 'refused-connect' });
      else if (err.code === 'ECONNRESET' && !req.reusedSocket) finish({ kind: 'refused-backlog' });
      else
        finish({
          kind: 'reset',
          detail: `${err.code ?? ''} ${err.message}${req.reusedSocket ? ' (reused socket)' : ''}`,
        });
    });
    req.end();
  });
}

/**
 * `connections` loops, each making creates one after another until its connection is refused (the
 * server stopped listening; or reset unaccepted in the backlog as it stopped) or `until` resolves. Returns every outcome.
 */
export async function runCreateLoad(options: {
  base: string;
  key: string;
  connections: number;
  until: Promise<unknown>;
  /** Told of each outcome as it comes (a test waits for some creates before it acts). */
  onOutcome?: (outcome: Outcome) => void;
}): Promise<LoadReport> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const outcomes: Outcome[] = [];
  let over = false;
  void options.until.then(() => (over = true));
  const loop = async () => {
    while (!over) {
      const outcome = await createOnce(agent, options.base, options.key);
      outcomes.push(outcome);
      options.onOutcome?.(outcome);
      if (outcome.kind === 'refused-connect' || outcome.kind === 'refused-backlog') return;
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  agent.destroy();
  const created = outcomes.flatMap((o) => (o.kind === 'created' ? [o.trxid] : []));
  return { outcomes, created, count: (kind) => outcomes.filter((o) => o.kind === kind).length };
}
