#!/usr/bin/env node
// @ts-check
// `npm run bench`: measures the gateway against a bare Fastify route in the same run, on this machine.
//
//   node scripts/bench.mjs [--duration S] [--connections N] [--db sqlite,postgres] [--log FILE]
//                          [--compare FILE] [--scale [--scale-rows N]] [--soak MINUTES]
//                          [--only cqris-fresh,cstatus-id,...]   (BENCH_CPU_PROF=DIR profiles the gateway)
//   BENCH_RATE_LIMIT_PER_MINUTE=N (and BENCH_REDIS_URL) measure the gateway with its rate limit on.
//
// Every server and every load generator is a child process of its own: the load generator must not
// share the server's event loop, and the gateway runs exactly as `qris-gateway serve` does in
// production (info logging written to a file, synchronous=FULL, no demo merchant, no rate limit unless asked).
// Everything it starts is bounded in time and killed, and every temporary directory or PostgreSQL
// schema it creates is removed, on success, failure or Ctrl-C.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, release, tmpdir, totalmem, hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cleanEnv } from './gateway-settings.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'qris-gateway.mjs');
const loadScript = join(root, 'scripts', 'bench-load.mjs');
const baselineScript = join(root, 'scripts', 'bench-baseline.mjs');

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    db: { type: 'string' },
    log: { type: 'string' },
    compare: { type: 'string' },
    scale: { type: 'boolean', default: false },
    'scale-rows': { type: 'string', default: '1000000' },
    soak: { type: 'string' },
    only: { type: 'string' },
    'prep-transactions': { type: 'string', default: '3000' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  process.stdout.write(`${readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(2, 8).join('\n').replace(/^\/\/ ?/gm, '')}\n`);
  process.exit(0);
}
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const SCALE_ROWS = Number(args['scale-rows']);
const PREP = Number(args['prep-transactions']);
const SOAK_MINUTES = args.soak === undefined ? null : Number(args.soak);
for (const [name, v] of /** @type {Array<[string, number]>} */ ([['duration', DURATION], ['connections', CONNECTIONS], ['scale-rows', SCALE_ROWS], ['prep-transactions', PREP]])) {
  if (!Number.isFinite(v) || v <= 0) fail(`--${name} must be a positive number`);
}
if (SOAK_MINUTES !== null && !(SOAK_MINUTES > 0)) fail('--soak must be a positive number of minutes');
const PG_URL = process.env.BENCH_DATABASE_URL || null;
/** --only: the scenarios to run (all when absent). */
const ONLY = args.only ? new Set(args.only.split(',').map((x) => x.trim())) : null;
const DBS = (args.db ?? (PG_URL ? 'sqlite,postgres' : 'sqlite')).split(',').map((s) => s.trim());
for (const db of DBS) if (db !== 'sqlite' && db !== 'postgres') fail(`--db: unknown database ${db}`);
if (DBS.includes('postgres') && !PG_URL) fail('--db postgres needs BENCH_DATABASE_URL');

// The hot amount sits where nothing else the bench creates can take its totals: fresh amounts are
// spread sparsely below 9,010,000, pre-created transactions use 6,000,000 to 9,000,000, unmatched payments 1..999.
const HOT_AMOUNT = 9_500_000;
const UNIQUE_CODES = 999; // the default UNIQUE_CODE_MIN..MAX, which the bench does not change

function fail(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------------
// Cleanup: children, temp dirs and PostgreSQL schemas are registered as they are made.

const children = new Set();
const cleanups = [];
let cleaning = null;

function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function killAll() {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

async function cleanup() {
  cleaning ??= (async () => {
    killAll();
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        process.stderr.write(`bench: cleanup: ${err.message}\n`);
      }
    }
  })();
  return cleaning;
}

// A synchronous last resort: if the process exits some other way, no child may outlive it.
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping\n`);
    void cleanup().finally(() => process.exit(130));
  });
}

const workDir = mkdtempSync(join(tmpdir(), 'qg-bench-'));
cleanups.push(() => rmSync(workDir, { recursive: true, force: true }));

// ---------------------------------------------------------------------------------------------------
// Helpers

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => resolvePort(port));
    });
  });
}

/** Runs a CLI command with --json and returns its object (the CLI prints exactly one on stdout). */
function cli(databaseUrl, argv) {
  const r = spawnSync(process.execPath, [bin, ...argv, '--json'], {
    cwd: root,
    env: cleanEnv({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }),
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (r.status !== 0) throw new Error(`qris-gateway ${argv.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** VmRSS and VmHWM of a process, in MiB, or null once it is gone. */
function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/** CPU time (user + system) a process has used so far, in milliseconds; clock ticks are 100 Hz on Linux. */
function cpuMsOf(pid) {
  try {
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** CPU milliseconds used so far by every PostgreSQL server process on this machine (the database's share
 * of a request's cost: the gateway's own figure leaves it out). */
function postgresCpuMs() {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.split(') ')[1].split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** Polls a server's RSS while a scenario runs; /proc is cheap to read and VmHWM only ever grows. */
function rssSampler(pid, everyMs = 100) {
  let peak = 0;
  const samples = [];
  const tick = () => {
    const m = memoryOf(pid);
    if (m) {
      peak = Math.max(peak, m.rss);
      samples.push({ t: Date.now(), rss: m.rss });
    }
  };
  tick();
  const timer = setInterval(tick, everyMs);
  return {
    stop() {
      clearInterval(timer);
      tick();
      return { peak, samples };
    },
  };
}

async function waitHttp(url, child, describe) {
  const deadline = Date.now() + 180_000; // a first run may compile TypeScript
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${describe} exited early`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${describe} did not start within 3 minutes`);
    await sleep(100);
  }
}

async function stopChild(child, graceMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------------------------------------------
// Servers

/** The bare Fastify server (bench-baseline.mjs), which prints "listening PORT". */
async function startBaseline() {
  // stdin is a pipe so the baseline notices when we die and stops itself.
  const child = track(spawn(process.execPath, [baselineScript], { cwd: root, env: cleanEnv({ PORT: '0' }), stdio: ['pipe', 'pipe', 'inherit'] }));
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

/** The bare Fastify route, warmed up, then measured once. */
async function measureBaseline() {
  const baseline = await startBaseline();
  try {
    process.stderr.write('bench: baseline\n');
    await runLoad(baseline, { name: 'warmup', kind: 'static', path: '/api/payment-gateway/cqris?amount=1', duration: 2 });
    return await runLoad(baseline, { name: 'baseline', kind: 'static', path: '/api/payment-gateway/cqris?amount=10000&apikey=sk_live_bench' });
  } finally {
    await baseline.stop();
  }
}

/**
 * A fresh database with a merchant (the fixture's first static QRIS), a live key and a webhook source,
 * made through the CLI as an operator would.
 */
async function prepareDatabase(kind, label) {
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
  return { kind, url, merchantId: merchant.id, apiKey: key.key, source, dynamicSample: vectors.vectors[0].cases.at(-1).dynamic };
}

/**
 * Planner statistics, as autovacuum gathers them within a minute of a table filling up. Without them
 * PostgreSQL plans the candidate-total read (merchant, mode, total IN (...)) as a scan of the merchant's
 * whole key range, and every scenario of a fresh database would measure that first minute.
 */
async function analyze(url) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('ANALYZE transactions, reserved_totals, payments');
  } finally {
    await client.end();
  }
}

async function startGateway(database, logFile) {
  const port = await freePort();
  // The server's real logger writes to stdout: send it (and stderr) to the log file, so every line is
  // formatted, scrubbed and written as in production.
  const fd = openSync(logFile, 'a');
  const child = track(
    // BENCH_CPU_PROF=DIR writes a V8 CPU profile of the gateway there when it stops (for finding costs).
    spawn(process.execPath, [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', resolve(process.env.BENCH_CPU_PROF)] : []), bin, 'serve'], {
      cwd: root,
      env: cleanEnv({
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: database.url,
        LOG_LEVEL: 'info',
        // Off by default, as the scenarios would hit it; a limit far above the load measures its cost.
        RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT_PER_MINUTE || '0',
        ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
        DEMO_MERCHANT: 'false',
        NODE_ENV: 'production',
      }),
      stdio: ['ignore', fd, fd],
    }),
  );
  closeSync(fd);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHttp(`${url}/healthz`, child, 'gateway');
  } catch (err) {
    const tail = logFile === '/dev/null' ? '' : readFileSync(logFile, 'utf8').slice(-4000);
    throw new Error(`${err.message}\n${tail}`);
  }
  return { url, pid: child.pid, postgres: database.kind === 'postgres', stop: () => stopChild(child) };
}

/** Creates transactions through the API (the same path clients use), a few dozen at a time. */
async function createTransactions(gateway, apiKey, count, amountOf) {
  const out = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const res = await fetch(`${gateway.url}/api/payment-gateway/cqris?amount=${amountOf(i)}`, { headers: { 'x-api-key': apiKey } });
      const body = await res.json();
      if (!res.ok) throw new Error(`creating a transaction failed: ${res.status} ${JSON.stringify(body)}`);
      out[i] = { id: body.data.trxid, total: body.data.total_amount };
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Load

let specCounter = 0;
/** Runs one scenario from a separate load-generator process while sampling the server's memory. */
async function runLoad(server, spec) {
  const specFile = join(workDir, `spec-${specCounter++}.json`);
  writeFileSync(specFile, JSON.stringify({ connections: CONNECTIONS, duration: DURATION, url: server.url, ...spec }));
  const loadAvg = round(loadavg()[0], 2);
  const cpuBefore = cpuMsOf(server.pid);
  const pgBefore = server.postgres ? postgresCpuMs() : null;
  const sampler = rssSampler(server.pid);
  const child = track(spawn(process.execPath, [loadScript, specFile], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] }));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
  // Bounded even if autocannon misbehaves: its own duration plus generous slack.
  const limitMs = ((spec.duration ?? DURATION) + 60) * 1000;
  const killer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  const code = await new Promise((r) => child.once('exit', r));
  clearTimeout(killer);
  const memory = sampler.stop();
  const cpuAfter = cpuMsOf(server.pid);
  const pgAfter = server.postgres ? postgresCpuMs() : null;
  if (code !== 0) throw new Error(`load generator failed for ${spec.name} (exit ${code})`);
  const result = JSON.parse(out.trim().split('\n').at(-1));
  const hwm = memoryOf(server.pid)?.hwm ?? null;
  // Server CPU per request is steadier than req/s when something else competes for the two cores, and
  // the 1-minute load average at the start tells when that happened.
  const serverCpuUsPerReq = cpuBefore !== null && cpuAfter !== null && result.requests > 0 ? round(((cpuAfter - cpuBefore) * 1000) / result.requests, 0) : null;
  const dbCpuUsPerReq = pgBefore !== null && result.requests > 0 ? round(((pgAfter - pgBefore) * 1000) / result.requests, 0) : null;
  return { ...result, peakRssMB: round(memory.peak, 1), serverHwmMB: hwm === null ? null : round(hwm, 1), serverCpuUsPerReq, dbCpuUsPerReq, loadAvg, rssSamples: memory.samples };
}

const round = (n, digits = 0) => (n === null || n === undefined || !Number.isFinite(n) ? n : Number(n.toFixed(digits)));

function row(db, scenario, r, baselineRps, note) {
  const { rssSamples, ...kept } = r;
  return { db, scenario, ...kept, ratio: baselineRps ? round(r.reqPerSec / baselineRps, 3) : null, ...(note ? { note } : {}) };
}

// ---------------------------------------------------------------------------------------------------
// Scenario sets

async function gatewayScenarios(kind, baselineRps, logChoice) {
  const database = await prepareDatabase(kind, `main-${kind}`);
  const logFile = logChoice ?? join(workDir, `gateway-${kind}.log`);
  const gateway = await startGateway(database, logFile);
  const headers = { 'x-api-key': database.apiKey };
  const rows = [];
  try {
    process.stderr.write(`bench: ${kind}: creating ${PREP} transactions for the read and payment scenarios\n`);
    const prepared = await createTransactions(gateway, database.apiKey, PREP, (i) => 6_000_000 + (i % 3_000) * 1000 + Math.floor(i / 3_000));
    const ids = prepared.slice(0, 1000).map((t) => t.id);
    if (kind === 'postgres') await analyze(database.url);
    const logBytesBefore = logFile === '/dev/null' ? 0 : statSync(logFile).size;
    let requestsSeen = 0;

    const scenarios = [
      { name: 'cqris-fresh', kind: 'fresh' },
      // The client's creates: POST, JSON, an Idempotency-Key each (so no batching of plain creates).
      { name: 'cqris-client', kind: 'fresh-client', freshOffset: 400_000 },
      { name: 'cqris-post', kind: 'fresh-client', idempotent: false, freshOffset: 800_000, note: 'POST with a JSON body, no Idempotency-Key' },
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
    await runLoad(gateway, { name: 'warmup', kind: 'static', path: '/api/payment-gateway/cstatus?limit=20', duration: 2, headers });
    for (const s of scenarios) {
      if (ONLY && !ONLY.has(s.name)) continue;
      process.stderr.write(`bench: ${kind}: ${s.name}\n`);
      const r = await runLoad(gateway, { ...s, headers: s.kind === 'storm' ? {} : headers });
      requestsSeen += r.requests;
      rows.push(row(kind, s.name, r, baselineRps, s.note));
    }
    const logBytes = logFile === '/dev/null' ? null : statSync(logFile).size - logBytesBefore;
    return { rows, log: { file: logFile === '/dev/null' ? '/dev/null' : 'temp file', bytes: logBytes, bytesPerRequest: logBytes === null ? null : round(logBytes / requestsSeen, 0) } };
  } finally {
    await gateway.stop();
  }
}

// --- item 4: a million rows ------------------------------------------------------------------------

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function fastSuffixes(n, length) {
  // Fill rows need ids shaped like real ones (trx_, the creation millisecond in 9 base-36 digits, then 22
  // base62 characters: src/domain/ids.ts); a slight modulo bias does not matter here.
  const bytes = randomBytes(n * length);
  const suffixes = new Array(n);
  for (let i = 0; i < n; i++) {
    let s = '';
    for (let j = 0; j < length; j++) s += BASE62[bytes[i * length + j] % 62];
    suffixes[i] = s;
  }
  return suffixes;
}

/**
 * Realistic history rows: past transactions of the bench merchant spread over 90 days, mostly expired
 * or paid, with a real dynamic QRIS payload. reserved_totals is left empty on purpose: these are old
 * transactions whose reservations have lapsed, and they must not make creates slower or fail.
 */
function* historyRows(database, count, startIndex, totalPlanned) {
  const now = Date.now();
  const span = 90 * 86_400_000;
  const oldest = now - span - 3_600_000;
  const chunk = 10_000;
  for (let done = 0; done < count; done += chunk) {
    const n = Math.min(chunk, count - done);
    const suffixes = fastSuffixes(n, 22);
    const rows = new Array(n);
    for (let k = 0; k < n; k++) {
      const i = startIndex + done + k;
      const created = oldest + Math.floor((i / totalPlanned) * span);
      const amount = 1000 + ((i * 7919) % 2_000_000);
      const code = 1 + (i % 999);
      // Only final states: the expiry sweeper would long since have expired every overdue pending row. A
      // fill that leaves overdue pending rows makes the sweeper's first passes expire them all (with
      // their outbox events) during the measurement, which measures a backlog, not scale.
      const status = i % 20 < 7 ? 'paid' : 'expired';
      rows[k] = {
        id: `trx_${created.toString(36).padStart(9, '0')}${suffixes[k]}`,
        merchant_id: database.merchantId,
        mode: 'live',
        status,
        amount,
        unique_code: code,
        total_amount: amount + code,
        currency: 'IDR',
        email: i % 3 === 0 ? `buyer${i}@example.com` : null,
        ref: i % 2 === 0 ? `order-${i}` : null,
        qris: database.dynamicSample,
        created_at: created,
        expires_at: created + 900_000,
        paid_at: status === 'paid' ? created + 60_000 : null,
        paid_late: 0,
        payment_id: null,
        updated_at: status === 'paid' ? created + 60_000 : created + 900_000,
      };
    }
    yield rows;
  }
}
const FILL_COLUMNS = ['id', 'merchant_id', 'mode', 'status', 'amount', 'unique_code', 'total_amount', 'currency', 'email', 'ref', 'qris', 'created_at', 'expires_at', 'paid_at', 'paid_late', 'payment_id', 'updated_at'];

/** Bulk-inserts history rows straight through the driver; returns a spread sample of their ids. */
async function fillTransactions(database, count, startIndex, totalPlanned, sampleEvery) {
  const sample = [];
  const started = Date.now();
  if (database.kind === 'sqlite') {
    const { default: Sqlite } = await import('better-sqlite3');
    const db = new Sqlite(database.url.slice('sqlite:'.length));
    db.pragma('busy_timeout = 10000');
    // Only this filling connection skips fsyncs; the server keeps synchronous=FULL for its own writes.
    db.pragma('synchronous = OFF');
    const insert = db.prepare(`INSERT INTO transactions (${FILL_COLUMNS.join(',')}) VALUES (${FILL_COLUMNS.map((c) => `@${c}`).join(',')})`);
    // Big transactions: one commit per 100,000 rows rather than one per row.
    const insertMany = db.transaction((batch) => {
      for (const r of batch) insert.run(r);
    });
    let pending = [];
    let seen = 0;
    for (const rows of historyRows(database, count, startIndex, totalPlanned)) {
      for (const r of rows) if (seen++ % sampleEvery === 0) sample.push(r.id);
      pending.push(...rows);
      if (pending.length >= 100_000) {
        insertMany(pending);
        pending = [];
      }
    }
    if (pending.length) insertMany(pending);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
  } else {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    // unnest over column arrays: one statement carries 10,000 rows with only 17 parameters.
    const types = ['text', 'text', 'text', 'text', 'bigint', 'integer', 'bigint', 'text', 'text', 'text', 'text', 'bigint', 'bigint', 'bigint', 'integer', 'text', 'bigint'];
    const sql = `INSERT INTO transactions (${FILL_COLUMNS.join(',')}) SELECT * FROM unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(',')})`;
    let seen = 0;
    let inTx = 0;
    await client.query('BEGIN');
    for (const rows of historyRows(database, count, startIndex, totalPlanned)) {
      for (const r of rows) if (seen++ % sampleEvery === 0) sample.push(r.id);
      await client.query(sql, FILL_COLUMNS.map((c) => rows.map((r) => r[c])));
      inTx += rows.length;
      if (inTx >= 100_000) {
        await client.query('COMMIT');
        await client.query('BEGIN');
        inTx = 0;
      }
    }
    await client.query('COMMIT');
    // Autovacuum would analyze a table that grew this much; do it now rather than measure stale stats.
    await client.query('ANALYZE transactions');
    await client.end();
  }
  process.stderr.write(`bench: ${database.kind}: inserted ${count.toLocaleString('en')} rows in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return sample;
}

async function scaleScenarios(kind, baselineRps, logChoice) {
  const database = await prepareDatabase(kind, `scale-${kind}`);
  const logFile = logChoice ?? join(workDir, `gateway-scale-${kind}.log`);
  const small = 1000;
  const rows = [];
  // Fill the first 1,000 before the server starts, the rest while it is idle between measurements.
  const smallIds = await fillTransactions(database, small, 0, SCALE_ROWS, 1);
  const gateway = await startGateway(database, logFile);
  const headers = { 'x-api-key': database.apiKey };
  const measure = async (label, ids) => {
    for (const s of [
      { name: `cstatus-id@${label}`, kind: 'cycle', paths: ids.map((id) => `/api/payment-gateway/cstatus?trxid=${id}`) },
      { name: `cstatus-list@${label}`, kind: 'static', path: '/api/payment-gateway/cstatus?limit=20' },
    ]) {
      process.stderr.write(`bench: ${kind}: ${s.name}\n`);
      rows.push(row(kind, s.name, await runLoad(gateway, { ...s, headers }), baselineRps));
    }
  };
  try {
    await runLoad(gateway, { name: 'warmup', kind: 'static', path: '/api/payment-gateway/cstatus?limit=20', duration: 2, headers });
    await measure('1k', smallIds);
    const rest = SCALE_ROWS - small;
    // Look-ups at scale use ids spread over the whole table, so they are not all in a hot corner.
    const bigSample = await fillTransactions(database, rest, small, SCALE_ROWS, Math.max(1, Math.floor(rest / 2000)));
    await measure(SCALE_ROWS >= 1e6 ? `${SCALE_ROWS / 1e6}M` : String(SCALE_ROWS), bigSample.concat(smallIds.slice(0, 100)));
  } finally {
    await gateway.stop();
  }
  const checks = [];
  for (const what of ['cstatus-id', 'cstatus-list']) {
    const a = rows.find((r) => r.scenario.startsWith(`${what}@1k`));
    const b = rows.find((r) => r.scenario.startsWith(`${what}@`) && r !== a);
    const ratio = round(b.latencyMs.p99 / a.latencyMs.p99, 2);
    checks.push({ db: kind, target: `${what} p99 at ${SCALE_ROWS.toLocaleString('en')} rows within 1.5x of 1,000 rows`, value: ratio, ok: ratio <= 1.5 });
  }
  return { rows, checks };
}

// --- item 4: soak ----------------------------------------------------------------------------------

async function soak(kind, minutes, logChoice) {
  const database = await prepareDatabase(kind, `soak-${kind}`);
  // Logs still go through the real logger; /dev/null only spares the disk a multi-gigabyte file.
  const gateway = await startGateway(database, logChoice ?? '/dev/null');
  try {
    const prepared = await createTransactions(gateway, database.apiKey, 1000, (i) => 6_000_000 + i * 1000);
    const paths = prepared.map((t) => ({ status: `/api/payment-gateway/cstatus?trxid=${t.id}`, png: `/api/payment-gateway/qr/${t.id}.png` }));
    const seconds = Math.round(minutes * 60);
    process.stderr.write(`bench: ${kind}: soak for ${seconds} s (mixed create / read / list / QR), RSS every 10 s\n`);
    const samples = [];
    const started = Date.now();
    const timer = setInterval(() => {
      const m = memoryOf(gateway.pid);
      if (m) {
        samples.push({ s: Math.round((Date.now() - started) / 1000), rssMB: round(m.rss, 1) });
        process.stderr.write(`bench: soak ${samples.at(-1).s}s rss ${samples.at(-1).rssMB} MiB\n`);
      }
    }, 10_000);
    let result;
    try {
      result = await runLoad(gateway, { name: 'soak', kind: 'mixed', paths, duration: seconds, headers: { 'x-api-key': database.apiKey } });
    } finally {
      clearInterval(timer);
    }
    const third = Math.max(1, Math.floor(samples.length / 3));
    const mean = (xs) => xs.reduce((a, b) => a + b.rssMB, 0) / xs.length;
    const first = mean(samples.slice(0, third));
    const last = mean(samples.slice(-third));
    const growth = (last - first) / first;
    // "Flat": the last third's mean RSS within 10% of the first third's. Heap growth that is only
    // V8 sizing its young generation settles in the first minute; a leak keeps climbing.
    const { rssSamples, ...kept } = result;
    return {
      db: kind,
      minutes,
      ...kept,
      samples,
      firstThirdMB: round(first, 1),
      lastThirdMB: round(last, 1),
      growthPct: round(growth * 100, 1),
      flat: growth <= 0.1,
    };
  } finally {
    await gateway.stop();
  }
}

// ---------------------------------------------------------------------------------------------------
// Output

function commitInfo() {
  // Read .git directly (no git process): HEAD, then the branch ref or packed-refs.
  try {
    const head = readFileSync(join(root, '.git', 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref: ')) return head;
    const ref = head.slice(5);
    const loose = join(root, '.git', ref);
    if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
    const packed = readFileSync(join(root, '.git', 'packed-refs'), 'utf8');
    return packed.split('\n').find((l) => l.endsWith(` ${ref}`))?.split(' ')[0] ?? null;
  } catch {
    return null;
  }
}

function machineInfo() {
  const cpu = cpus();
  return {
    hostname: hostname(),
    cpuModel: cpu[0]?.model ?? null,
    cpus: cpu.length,
    memoryGB: round(totalmem() / 2 ** 30, 1),
    kernel: release(),
    node: process.version,
    loadAvgAtStart: loadavg().map((n) => round(n, 2)),
  };
}

const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
function printTable(rows) {
  const head = `${pad('db', 9)}${pad('scenario', 22)}${lpad('req/s', 9)}${lpad('p50 ms', 8)}${lpad('p99 ms', 8)}${lpad('non2xx', 8)}${lpad('RSS MiB', 9)}${lpad('ratio', 7)}${lpad('cpu µs/req', 11)}${lpad('db µs/req', 10)}${lpad('load', 6)}`;
  const lines = [head, '-'.repeat(head.length)];
  for (const r of rows) {
    lines.push(
      `${pad(r.db, 9)}${pad(r.scenario, 22)}${lpad(Math.round(r.reqPerSec), 9)}${lpad(r.latencyMs.p50, 8)}${lpad(r.latencyMs.p99, 8)}${lpad(r.non2xx, 8)}${lpad(r.peakRssMB, 9)}${lpad(r.ratio === null ? '' : r.ratio.toFixed(2), 7)}${lpad(r.serverCpuUsPerReq ?? '', 11)}${lpad(r.dbCpuUsPerReq ?? '', 10)}${lpad(r.loadAvg ?? '', 6)}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

function targetChecks(rows) {
  const get = (db, s) => rows.find((r) => r.db === db && r.scenario === s);
  const checks = [];
  const c = get('sqlite', 'cqris-fresh');
  if (c) {
    checks.push({ db: 'sqlite', target: 'cqris-fresh req/s >= 0.20 of baseline', value: c.ratio, ok: c.ratio >= 0.2 });
    checks.push({ db: 'sqlite', target: `cqris-fresh p99 < 25 ms at ${CONNECTIONS} connections`, value: c.latencyMs.p99, ok: c.latencyMs.p99 < 25 });
  }
  const s = get('sqlite', 'cstatus-id');
  if (s) checks.push({ db: 'sqlite', target: 'cstatus-id req/s >= 0.50 of baseline', value: s.ratio, ok: s.ratio >= 0.5 });
  const p = get('postgres', 'cqris-fresh');
  if (p) checks.push({ db: 'postgres', target: 'cqris-fresh req/s >= 0.10 of baseline', value: p.ratio, ok: p.ratio >= 0.1 });
  const ps = get('postgres', 'cstatus-id');
  if (ps) checks.push({ db: 'postgres', target: 'cstatus-id req/s >= 0.50 of baseline (sqlite target, for reference)', value: ps.ratio, ok: ps.ratio >= 0.5 });
  return checks;
}

function printChecks(checks) {
  for (const c of checks) process.stdout.write(`${c.ok ? 'MET ' : 'MISS'}  ${pad(c.db, 9)}${c.target}: ${c.value}\n`);
}

function printCompare(file, rows) {
  const old = JSON.parse(readFileSync(file, 'utf8'));
  const before = new Map((old.results ?? []).map((r) => [`${r.db}/${r.scenario}`, r]));
  process.stdout.write(`\ncompared with ${file} (${old.startedAt ?? '?'}, commit ${old.commit ?? '?'})\n`);
  const head = `${pad('db', 9)}${pad('scenario', 22)}${lpad('req/s', 16)}${lpad('Δ', 8)}${lpad('p99 ms', 16)}${lpad('ratio', 14)}`;
  process.stdout.write(`${head}\n${'-'.repeat(head.length)}\n`);
  const pct = (a, b) => (b ? `${(((a - b) / b) * 100).toFixed(1)}%` : '');
  for (const r of rows) {
    const b = before.get(`${r.db}/${r.scenario}`);
    if (!b) {
      process.stdout.write(`${pad(r.db, 9)}${pad(r.scenario, 22)}  (not in the earlier run)\n`);
      continue;
    }
    const ratio = b.ratio === null || r.ratio === null ? '' : `${b.ratio.toFixed(2)}→${r.ratio.toFixed(2)}`;
    process.stdout.write(
      `${pad(r.db, 9)}${pad(r.scenario, 22)}${lpad(`${Math.round(b.reqPerSec)}→${Math.round(r.reqPerSec)}`, 16)}${lpad(pct(r.reqPerSec, b.reqPerSec), 8)}${lpad(`${b.latencyMs.p99}→${r.latencyMs.p99}`, 16)}${lpad(ratio, 14)}\n`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// Main

async function main() {
  const startedAt = new Date();
  // Build dist/ first (the entry point compiles when sources changed), so no timing includes tsc.
  const build = spawnSync(process.execPath, [bin, '--help'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], timeout: 300_000 });
  if (!existsSync(join(root, 'dist', 'cli', 'bin.js')) || build.error) throw new Error('could not build dist/');

  const mode = SOAK_MINUTES !== null ? 'soak' : args.scale ? 'scale' : 'standard';
  process.stderr.write(`bench: ${mode} run, ${CONNECTIONS} connections, ${DURATION} s per scenario, databases: ${DBS.join(', ')}\n`);
  const report = {
    startedAt: startedAt.toISOString(),
    commit: commitInfo(),
    mode,
    options: { duration: DURATION, connections: CONNECTIONS, databases: DBS, log: args.log ?? (mode === 'soak' ? '/dev/null' : 'temp file') },
    machine: machineInfo(),
    results: [],
    checks: [],
  };

  let baselineRps = null;
  if (mode !== 'soak') {
    const r = await measureBaseline();
    baselineRps = r.reqPerSec;
    report.results.push(row('fastify', 'baseline', r, baselineRps));
  }

  if (mode === 'standard') {
    report.logs = {};
    for (const kind of DBS) {
      const { rows, log } = await gatewayScenarios(kind, baselineRps, args.log);
      report.results.push(...rows);
      report.logs[kind] = log;
    }
    // This machine's speed drifts over minutes (the bare route alone has read 30,000 to 47,000 req/s
    // within an hour), so the baseline is measured again after the gateway, and every ratio is taken
    // against the mean of the two: both readings are printed.
    // A pause first, so that the database's own work after the last scenario (PostgreSQL's autovacuum
    // after a payment storm) is not read as a slower machine, which would flatter every ratio.
    await sleep(15_000);
    const end = await measureBaseline();
    report.results.push(row('fastify', 'baseline-end', end, null));
    const mean = (baselineRps + end.reqPerSec) / 2;
    report.baselineMeanRps = round(mean, 0);
    for (const r of report.results) if (r.db !== 'fastify') r.ratio = round(r.reqPerSec / mean, 3);
    report.checks = targetChecks(report.results);
  } else if (mode === 'scale') {
    report.options.scaleRows = SCALE_ROWS;
    for (const kind of DBS) {
      const { rows, checks } = await scaleScenarios(kind, baselineRps, args.log);
      report.results.push(...rows);
      report.checks.push(...checks);
    }
  } else {
    report.soak = await soak(DBS[0], SOAK_MINUTES, args.log);
  }
  report.finishedAt = new Date().toISOString();

  process.stdout.write(`\nqris-gateway bench ${report.startedAt} commit ${report.commit ?? 'unknown'} (${report.machine.cpus}x ${report.machine.cpuModel}, node ${report.machine.node})\n`);
  process.stdout.write(
    `${CONNECTIONS} connections, ${DURATION} s per scenario; ratio = req/s over the baseline's in this run${report.baselineMeanRps ? ` (the mean of its readings before and after: ${report.baselineMeanRps} req/s)` : ''}\n\n`,
  );
  if (report.results.length) printTable(report.results);
  for (const r of report.results.filter((x) => x.outcomes)) process.stdout.write(`${r.db} payment-storm outcomes: ${JSON.stringify(r.outcomes)}\n`);
  for (const [db, log] of Object.entries(report.logs ?? {})) if (log.bytes !== null) process.stdout.write(`${db} access log: ${log.bytesPerRequest} bytes per request\n`);
  if (report.checks.length) {
    process.stdout.write('\n');
    printChecks(report.checks);
  }
  if (report.soak) {
    const s = report.soak;
    process.stdout.write(
      `soak ${s.db} ${s.minutes} min: ${Math.round(s.reqPerSec)} req/s, p99 ${s.latencyMs.p99} ms, non2xx ${s.non2xx}; RSS first third ${s.firstThirdMB} MiB, last third ${s.lastThirdMB} MiB (${s.growthPct}%): ${s.flat ? 'flat' : 'GROWING'}\n`,
    );
  }

  const outDir = join(root, 'bench-results');
  mkdirSync(outDir, { recursive: true });
  const outFile = join(outDir, `${startedAt.toISOString().replace(/[:.]/g, '-')}${mode === 'standard' ? '' : `-${mode}`}.json`);
  writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\nwrote ${outFile}\n`);
  if (args.compare) printCompare(args.compare, report.results);
}

try {
  await main();
  await cleanup();
} catch (err) {
  process.stderr.write(`bench: ${err.stack ?? err}\n`);
  await cleanup();
  process.exitCode = 1;
}
