// @ts-check
// The standard run: the gateway's scenarios on one database.
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ONLY, PREP } from './options.mjs';
import { round } from './measure.mjs';
import { row, runLoad } from './load.mjs';
import { workDir } from './processes.mjs';
import { analyze, createTransactions, prepareDatabase, startGateway } from './servers.mjs';

// The hot amount sits where nothing else the bench creates can take its totals: fresh amounts are
// spread sparsely below 9,010,000, pre-created transactions use 6,000,000 to 9,000,000, unmatched payments 1..999.
const HOT_AMOUNT = 9_500_000;
const UNIQUE_CODES = 999; // the default UNIQUE_CODE_MIN..MAX, which the bench does not change

export async function gatewayScenarios(kind, baselineRps, logChoice) {
  const database = await prepareDatabase(kind, `main-${kind}`);
  const logFile = logChoice ?? join(workDir, `gateway-${kind}.log`);
  const gateway = await startGateway(database, logFile);
  const headers = { 'x-api-key': database.apiKey };
  const rows = [];
  try {
    process.stderr.write(`bench: ${kind}: creating ${PREP} transactions for the read and payment scenarios\n`);
    const prepared = await createTransactions(
      gateway,
      database.apiKey,
      PREP,
      (i) => 6_000_000 + (i % 3_000) * 1000 + Math.floor(i / 3_000),
    );
    const ids = prepared.slice(0, 1000).map((t) => t.id);
    if (kind === 'postgres') await analyze(database.url);
    const logBytesBefore = logFile === '/dev/null' ? 0 : statSync(logFile).size;
    let requestsSeen = 0;

    const scenarios = [
      // The floor: a route that touches no database and needs no key, so its ratio is the most any API
      // request of this gateway can reach on this machine (hooks, the access line, metrics, Node's HTTP).
      { name: 'healthz', kind: 'static', path: '/healthz', keyless: true, note: 'the floor: no key, no database' },
      { name: 'cqris-fresh', kind: 'fresh' },
      // The client's creates: POST, JSON, an Idempotency-Key each (so no batching of plain creates).
      { name: 'cqris-client', kind: 'fresh-client', freshOffset: 400_000 },
      {
        name: 'cqris-post',
        kind: 'fresh-client',
        idempotent: false,
        freshOffset: 800_000,
        note: 'POST with a JSON body, no Idempotency-Key',
      },
      {
        // One hot amount has 999 unique codes, and they stay reserved far longer than the run: the run is
        // capped at that many requests so each one is a real create (a 503 after that would measure the
        // refusal instead), and the next scenario measures the refusals on their own.
        name: 'cqris-hot',
        kind: 'static',
        path: `/api/payment-gateway/cqris?amount=${HOT_AMOUNT}`,
        amount: UNIQUE_CODES,
        note: `capped at ${UNIQUE_CODES} requests (one per unique code)`,
      },
      {
        name: 'cqris-hot-exhausted',
        kind: 'static',
        path: `/api/payment-gateway/cqris?amount=${HOT_AMOUNT}`,
        note: 'every code taken: all 503 unique_code_exhausted by design',
      },
      { name: 'cstatus-id', kind: 'cycle', paths: ids.map((id) => `/api/payment-gateway/cstatus?trxid=${id}`) },
      { name: 'cstatus-list', kind: 'static', path: '/api/payment-gateway/cstatus?limit=20' },
      { name: 'qr-png', kind: 'cycle', paths: ids.map((id) => `/api/payment-gateway/qr/${id}.png`) },
      {
        name: 'payment-storm',
        kind: 'storm',
        path: database.source.url,
        secret: database.source.secret,
        totals: prepared.map((t) => t.total),
        runId: `bench-${randomBytes(4).toString('hex')}`,
        note: `alternating matching (${PREP} transactions) and unmatched payments`,
      },
    ];
    // A short unrecorded warm-up so the first scenario does not pay for JIT compilation alone.
    await runLoad(gateway, {
      name: 'warmup',
      kind: 'static',
      path: '/api/payment-gateway/cstatus?limit=20',
      duration: 2,
      headers,
    });
    for (const s of scenarios) {
      if (ONLY && !ONLY.has(s.name)) continue;
      process.stderr.write(`bench: ${kind}: ${s.name}\n`);
      const r = await runLoad(gateway, { ...s, headers: s.kind === 'storm' || s.keyless ? {} : headers });
      requestsSeen += r.requests;
      rows.push(row(kind, s.name, r, baselineRps, s.note));
    }
    const logBytes = logFile === '/dev/null' ? null : statSync(logFile).size - logBytesBefore;
    return {
      rows,
      log: {
        file: logFile === '/dev/null' ? '/dev/null' : 'temp file',
        bytes: logBytes,
        bytesPerRequest: logBytes === null ? null : round(logBytes / requestsSeen, 0),
      },
    };
  } finally {
    await gateway.stop();
  }
}
