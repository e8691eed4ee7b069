#!/usr/bin/env node
// @ts-check
// `npm run ab:instructions -- A B`: instructions per request of two builds (or more), counted by valgrind.
//
//   node scripts/ab-instructions.mjs A B [C ...] [--only cqris-fresh,cstatus-id] [--db sqlite,postgres]
//                                    [--concurrency 1,8] [--requests 1000] [--warm 1500] [--rounds 2]
//   healthz (GET /healthz, which touches nothing) is also a scenario: the floor every request pays.
//   A, B, ... are git revisions or directories, prepared as `npm run ab` prepares them (scripts/ab/trees.mjs).
//
// Why: on a shared two-core machine even server CPU per request drifts by several percent within minutes,
// more than the changes worth finding. Instructions retired do not depend on what else runs: the gateway
// runs under callgrind (valgrind, on every machine of this kind), instrumentation switched on only after
// a warm-up (so V8 has optimised the hot path), and the count is the whole process's, all threads, over a
// fixed number of requests. Each request has its own fresh amount (cqris-fresh) or reads one of 500
// transactions (cstatus-id). At concurrency 1 every create is its own commit, so the figure is the code
// path's cost alone; at higher concurrency creates share batches and commits, whose number depends on
// timing, so each row also shows the commits and batches the requests took: compare rows whose counts
// are alike. On PostgreSQL the database server's own work is not counted (it is another process).
// Under callgrind the gateway runs some 50 times slower: a round of one build takes a minute or two.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { splitCallgrind } from './ab/callgrind-split.mjs';
import { abDir, median, prepareTree } from './ab/trees.mjs';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    only: { type: 'string', default: 'cqris-fresh,cstatus-id' },
    db: { type: 'string', default: 'sqlite' },
    concurrency: { type: 'string', default: '1,8' },
    requests: { type: 'string', default: '1000' },
    warm: { type: 'string', default: '1500' },
    rounds: { type: 'string', default: '2' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help || positionals.length < 2) {
  process.stdout.write(
    `${readFileSync(fileURLToPath(import.meta.url), 'utf8')
      .split('\n')
      .slice(2, 8)
      .join('\n')
      .replace(/^\/\/ ?/gm, '')}\n`,
  );
  process.exit(args.help ? 0 : 2);
}

/** @param {string} message @returns {never} */
function fail(message) {
  process.stderr.write(`ab-instructions: ${message}\n`);
  process.exit(2);
}
const whole = (name, text) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} must be a positive whole number`);
  return n;
};
const REQUESTS = whole('requests', args.requests);
const WARM = whole('warm', args.warm);
const ROUNDS = whole('rounds', args.rounds);
const CONCURRENCY = args.concurrency.split(',').map((c) => whole('concurrency', c.trim()));
const SCENARIOS = args.only.split(',').map((s) => s.trim());
for (const s of SCENARIOS)
  if (s !== 'cqris-fresh' && s !== 'cstatus-id' && s !== 'healthz')
    fail(`unknown scenario ${s} (cqris-fresh, cstatus-id or healthz)`);
const DBS = args.db.split(',').map((s) => s.trim());
for (const d of DBS) if (d !== 'sqlite' && d !== 'postgres') fail(`unknown database ${d}`);
const PG_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  fail('valgrind is not installed (Debian: apt-get install valgrind)');
}

// vgdb, which callgrind_control talks through, names its pipes after USER and HOST: the same on both sides.
const vgdbPrefix = join(abDir, `vgdb-${process.pid}`);
const vgdbEnv = { ...process.env, USER: process.env.USER || 'gateway', HOST: '127.0.0.1' };
const control = (pid, flag) =>
  execFileSync('callgrind_control', [`--vgdb-prefix=${vgdbPrefix}`, flag, String(pid)], {
    env: vgdbEnv,
    stdio: 'ignore',
  });

/** A fresh database for one run: a SQLite file, or a schema of its own in BENCH_DATABASE_URL. */
async function freshDatabase(db, dir) {
  if (db === 'sqlite') return { url: `sqlite:${join(dir, 'gateway.db')}`, drop: async () => {} };
  const { default: pg } = await import('pg');
  const schema = `qg_abi_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const u = new URL(PG_URL);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}

const freePort = () =>
  new Promise((resolvePort) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolvePort(port));
    });
  });

/** Counters the gateway keeps (older builds may lack them: then zero). */
async function counters(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const sum = (re) => [...text.matchAll(re)].reduce((a, m) => a + Number(m[1]), 0);
  return {
    commits: sum(/^qris_group_commits_total (\S+)/gm),
    batches: sum(/^qris_create_batches_total\{[^}]*\} (\S+)/gm),
  };
}

/** One build, one database, one scenario, one concurrency: instructions per request. */
async function measure(tree, db, scenario, concurrency) {
  const dir = join(abDir, 'instructions', `${tree.commit}-${db}-${scenario}-${concurrency}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const database = await freshDatabase(db, dir);
  const bin = join(tree.dir, 'bin', 'qris-gateway.mjs');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATABASE_URL: database.url,
    LOG_LEVEL: 'warn',
  };
  const cli = (argv) => {
    const r = spawnSync(process.execPath, [bin, ...argv, '--json'], {
      cwd: tree.dir,
      env,
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (r.status !== 0) throw new Error(`qris-gateway ${argv.join(' ')} failed: ${r.stdout}${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  try {
    cli(['migrate']);
    const vectors = JSON.parse(readFileSync(join(tree.dir, 'test', 'fixtures', 'qris-vectors.json'), 'utf8'));
    const merchant = cli(['merchant', 'add', '--name', 'Bench Merchant', '--qris', vectors.vectors[0].static]);
    const key = cli(['key', 'create', '--merchant', merchant.id, '--mode', 'live']).key;
    const port = await freePort();
    const log = openSync(join(dir, 'gateway.log'), 'a');
    // --instr-atstart=no: start-up and warm-up run uninstrumented (faster, and not counted).
    const child = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        '--instr-atstart=no',
        `--callgrind-out-file=${join(dir, 'callgrind.out')}`,
        '--vgdb=yes',
        `--vgdb-prefix=${vgdbPrefix}`,
        process.execPath,
        bin,
        'serve',
        '--role',
        'api',
      ],
      {
        cwd: tree.dir,
        stdio: ['ignore', log, log],
        env: {
          ...env,
          ...vgdbEnv,
          PORT: String(port),
          LOG_LEVEL: 'info',
          RATE_LIMIT_PER_MINUTE: '0',
          DEMO_MERCHANT: 'false',
          NODE_ENV: 'production',
          // Under callgrind every turn of the loop is ~50x longer: the load shedder would refuse the run.
          // With its limits off it is not registered at all (overload.ts), so neither its onRequest hook
          // (a few comparisons) nor its sampler (per second, not per request, and so inflated ~50x per
          // request here) is counted. Older builds ignore these.
          OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
          OVERLOAD_MAX_HEAP_USED_BYTES: '0',
        },
      },
    );
    const url = `http://127.0.0.1:${port}`;
    try {
      for (let i = 0; ; i++) {
        try {
          if ((await fetch(`${url}/healthz`)).ok) break;
        } catch {
          // not listening yet
        }
        if (i > 600 || child.exitCode !== null)
          throw new Error(`the gateway did not start; see ${join(dir, 'gateway.log')}`);
        await new Promise((r) => setTimeout(r, 500));
      }
      const ids = [];
      let sent = 0;
      const request = async () => {
        const i = sent++;
        // Status reads need transactions: the warm-up's first 500 requests create them.
        const path =
          scenario === 'healthz'
            ? '/healthz'
            : scenario === 'cstatus-id' && i >= 500
              ? `/api/payment-gateway/cstatus?trxid=${ids[i % ids.length]}`
              : `/api/payment-gateway/cqris?amount=${1_000_000 + i * 1000}`;
        const res = await fetch(url + path, { headers: { 'x-api-key': key } });
        const body = await res.json();
        if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
        if (scenario !== 'healthz' && ids.length < 500 && i < 500) ids.push(body.data.trxid);
      };
      const load = async (until) => {
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (sent < until) await request();
          }),
        );
      };
      await load(Math.max(WARM, scenario === 'cstatus-id' ? 600 : 0));
      const before = await counters(url);
      control(child.pid, '--instr=on');
      const start = sent;
      await load(start + REQUESTS);
      control(child.pid, '--dump');
      // The count is taken: a gateway that fails after the dump (it happened under valgrind on a loaded
      // machine) costs the run its commit and batch figures, not its count.
      const after = await counters(url).catch(() => null);
      let total = 0;
      let file = '';
      for (const f of readdirSync(dir).filter((name) => name.startsWith('callgrind.out'))) {
        const m = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, f), 'utf8'));
        if (m && Number(m[1]) > total) {
          total = Number(m[1]);
          file = join(dir, f);
        }
      }
      if (total === 0) throw new Error(`callgrind wrote no count; see ${dir}`);
      const split = splitCallgrind(file);
      const per = (n) => Math.round(n / REQUESTS);
      return {
        perRequest: per(total),
        compiler: per(split.compiler),
        gc: per(split.gc),
        rest: per(split.rest),
        commits: after ? after.commits - before.commits : null,
        batches: after ? after.batches - before.batches : null,
      };
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) =>
        child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r),
      );
    }
  } finally {
    await database.drop();
  }
}

async function main() {
  const trees = positionals.map((spec) => prepareTree(spec, fail));
  const name = (t) => String.fromCharCode(65 + trees.indexOf(t));
  const described = trees.map((t) => `${name(t)} = ${t.label} (${t.commit})`).join(', ');
  process.stderr.write(
    `ab-instructions: ${described}; ${ROUNDS} rounds; ${REQUESTS} requests after ${WARM} uncounted\n`,
  );
  // Builds compile their TypeScript on a first start: before anything is counted.
  for (const t of trees)
    spawnSync(process.execPath, [join(t.dir, 'bin', 'qris-gateway.mjs'), '--help'], { cwd: t.dir, stdio: 'ignore' });
  const rows = [];
  for (const db of DBS) {
    for (const scenario of SCENARIOS) {
      for (const concurrency of CONCURRENCY) {
        const runs = new Map(trees.map((t) => [t, []]));
        for (let round = 0; round < ROUNDS; round++) {
          // The order alternates, as in `npm run ab`, though a count should not care.
          for (const k of trees.keys()) {
            const t = trees[(k + round) % trees.length];
            process.stderr.write(
              `ab-instructions: ${db} ${scenario} x${concurrency} round ${round + 1}/${ROUNDS}: ${name(t)}\n`,
            );
            runs.get(t).push(await measure(t, db, scenario, concurrency));
          }
        }
        rows.push({ db, scenario, concurrency, runs });
      }
    }
  }
  process.stdout.write(`\ninstructions per request (millions); ${described}; ${REQUESTS} requests per run\n`);
  const summary = [];
  for (const { db, scenario, concurrency, runs } of rows) {
    process.stdout.write(`\n${db} ${scenario}, ${concurrency} at a time\n`);
    for (const t of trees) {
      const m = (n) => (n / 1e6).toFixed(3);
      const cells = runs
        .get(t)
        .map(
          (r) =>
            `${m(r.perRequest)} (compiler ${m(r.compiler)}, gc ${m(r.gc)}, rest ${m(r.rest)}; ${r.commits ?? '?'} commits, ${r.batches ?? '?'} batches)`,
        );
      process.stdout.write(`  ${name(t)} ${cells.join('  ')}\n`);
    }
    const medianOf = (t, key = 'perRequest') => median(runs.get(t).map((r) => r[key]));
    for (let x = 0; x < trees.length; x++) {
      for (let y = x + 1; y < trees.length; y++) {
        const ratio = medianOf(trees[y]) / medianOf(trees[x]);
        const restRatio = medianOf(trees[y], 'rest') / medianOf(trees[x], 'rest');
        process.stdout.write(
          `  median ${name(trees[y])}/${name(trees[x])} ${ratio.toFixed(3)}, rest alone ${restRatio.toFixed(3)}\n`,
        );
        summary.push({
          db,
          scenario,
          concurrency,
          a: trees[x].label,
          b: trees[y].label,
          ratio,
          restRatio,
          a_runs: runs.get(trees[x]),
          b_runs: runs.get(trees[y]),
        });
      }
    }
  }
  const outFile = join(abDir, `ab-instructions-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(outFile, `${JSON.stringify({ trees, options: args, summary }, null, 2)}\n`);
  process.stdout.write(`\nwrote ${outFile}\n`);
}

await main().catch((err) => {
  process.stderr.write(`ab-instructions: ${err.stack ?? err}\n`);
  process.exitCode = 1;
});
