// @ts-check
// The processes measured: the bare Fastify baseline and the gateway exactly as `qris-gateway serve` runs,
// each on a database prepared through the CLI as an operator would.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cleanEnv } from '../gateway-settings.mjs';
import { baselineScript, bin, PG_URL, root } from './options.mjs';
import { cleanups, freePort, stopChild, track, waitHttp, workDir } from './processes.mjs';

/** Runs a CLI command with --json and returns its object (the CLI prints exactly one on stdout). */
export function cli(databaseUrl, argv) {
  const r = spawnSync(process.execPath, [bin, ...argv, '--json'], {
    cwd: root,
    env: cleanEnv({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }),
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (r.status !== 0) throw new Error(`qris-gateway ${argv.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The bare Fastify server (bench-baseline.mjs), which prints "listening PORT". */
export async function startBaseline() {
  // stdin is a pipe so the baseline notices when we die and stops itself.
  const child = track(
    spawn(process.execPath, [baselineScript], {
      cwd: root,
      env: cleanEnv({ PORT: '0' }),
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  const port = await new Promise((resolvePort, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c) => {
      out += c;
      const m = /listening (\d+)/.exec(out);
      if (m) resolvePort(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`baseline exited (${code})`)));
    setTimeout(() => reject(new Error('baseline did not start')), 30_000).unref();
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => stopChild(child) };
}

/**
 * A fresh database with a merchant (the fixture's first static QRIS), a live key and a webhook source,
 * made through the CLI as an operator would.
 */
export async function prepareDatabase(kind, label) {
  let url;
  if (kind === 'sqlite') {
    const dir = join(workDir, label);
    mkdirSync(dir, { recursive: true });
    url = `sqlite:${join(dir, 'bench.db')}`;
  } else {
    // A schema of its own in BENCH_DATABASE_URL, selected through the connection's search_path, and
    // dropped at the end: the bench never touches anything else in that database.
    const { default: pg } = await import('pg');
    const schema = `qg_bench_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    cleanups.push(async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    });
    const u = new URL(PG_URL);
    u.searchParams.set('options', `-c search_path=${schema}`);
    url = u.toString();
  }
  cli(url, ['migrate']);
  const vectors = JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'qris-vectors.json'), 'utf8'));
  const merchant = cli(url, ['merchant', 'add', '--name', 'Bench Merchant', '--qris', vectors.vectors[0].static]);
  const key = cli(url, ['key', 'create', '--merchant', merchant.id, '--mode', 'live']);
  const source = cli(url, ['source', 'add', '--merchant', merchant.id, '--type', 'webhook', '--mode', 'live']);
  return {
    kind,
    url,
    merchantId: merchant.id,
    apiKey: key.key,
    source,
    dynamicSample: vectors.vectors[0].cases.at(-1).dynamic,
  };
}

/**
 * Planner statistics, as autovacuum gathers them within a minute of a table filling up. Without them
 * PostgreSQL plans the candidate-total read (merchant, mode, total IN (...)) as a scan of the merchant's
 * whole key range, and every scenario of a fresh database would measure that first minute.
 */
export async function analyze(url) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('ANALYZE transactions, reserved_totals, payments');
  } finally {
    await client.end();
  }
}

export async function startGateway(database, logFile) {
  const port = await freePort();
  // The server's real logger writes to stdout: send it (and stderr) to the log file, so every line is
  // formatted, scrubbed and written as in production.
  const fd = openSync(logFile, 'a');
  // BENCH_STATEMENTS=1 counts the statements (round trips on PostgreSQL) each scenario sends (load.mjs).
  const statementsFile = process.env.BENCH_STATEMENTS ? join(workDir, `statements-${port}.json`) : null;
  const child = track(
    // BENCH_CPU_PROF=DIR writes a V8 CPU profile of the gateway there when it stops (for finding costs).
    spawn(
      process.execPath,
      [
        ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', resolve(process.env.BENCH_CPU_PROF)] : []),
        // BENCH_NODE_FLAGS='--trace-gc ...': V8 flags that NODE_OPTIONS refuses, for the gateway only.
        ...(process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ').filter(Boolean) : []),
        ...(statementsFile ? ['--import', join(root, 'scripts', 'bench', 'statement-counter.mjs')] : []),
        bin,
        'serve',
      ],
      {
        cwd: root,
        env: cleanEnv({
          HOST: '127.0.0.1',
          PORT: String(port),
          DATABASE_URL: database.url,
          // BENCH_LOG_LEVEL=warn leaves out the access line: what the log costs, for an ablation only.
          LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'info',
          // Off by default, as the scenarios would hit it; a limit far above the load measures its cost.
          RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT_PER_MINUTE || '0',
          ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
          // BENCH_OVERLOAD_MAX_EVENT_LOOP_DELAY_MS=N and the like try other load-shedding limits (--overload).
          ...Object.fromEntries(
            Object.entries(process.env)
              .filter(([name]) => name.startsWith('BENCH_OVERLOAD_'))
              .map(([name, value]) => [name.slice('BENCH_'.length), value]),
          ),
          DEMO_MERCHANT: 'false',
          NODE_ENV: 'production',
          ...(statementsFile ? { BENCH_STATEMENTS_FILE: statementsFile } : {}),
        }),
        stdio: ['ignore', fd, fd],
      },
    ),
  );
  closeSync(fd);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHttp(`${url}/healthz`, child, 'gateway');
  } catch (err) {
    const tail = logFile === '/dev/null' ? '' : readFileSync(logFile, 'utf8').slice(-4000);
    throw new Error(`${err.message}\n${tail}`);
  }
  return {
    url,
    pid: child.pid,
    postgres: database.kind === 'postgres',
    statementsFile,
    stop: () => stopChild(child),
  };
}

/** Creates transactions through the API (the same path clients use), a few dozen at a time. */
export async function createTransactions(gateway, apiKey, count, amountOf) {
  const out = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const res = await fetch(`${gateway.url}/api/payment-gateway/cqris?amount=${amountOf(i)}`, {
        headers: { 'x-api-key': apiKey },
      });
      const body = await res.json();
      if (!res.ok) throw new Error(`creating a transaction failed: ${res.status} ${JSON.stringify(body)}`);
      out[i] = { id: body.data.trxid, total: body.data.total_amount };
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return out;
}
