#!/usr/bin/env node
// @ts-check
// `npm run ab -- A B`: server CPU per request of two builds (or more), loaded in turn in one run.
//
//   node scripts/ab-cpu.mjs A B [C ...] [--only cqris-fresh,cstatus-id] [--db sqlite,postgres] [--rounds 5]
//                                       [--duration 10] [--connections 50]
//   A, B, ... are git revisions (each checked out once as a detached worktree under $AB_DIR, by default
//   qris-gateway-ab in the temp folder, and reused) or directories;
//   every later build is compared with every earlier one (B/A; with C also C/A and C/B).
//
// Why this shape: on a shared two-core machine req/s drifts by tens of percent within minutes, and even
// server CPU per request drifts by several. So the builds run one after the other in every round, the
// one that goes first rotates (a drift then favours each side equally often), and what is printed
// is each round's ratio B/A, their median and how many rounds B cost more: a real change shows in most
// rounds, noise does not. Each run is the tree's own scripts/bench.mjs (whose flags --only, --db,
// --duration and --connections go back at least to 63c5776), and the figure is the serverCpuUsPerReq it
// writes to its bench-results/*.json (the server's user+system time from /proc over the requests served).
// PostgreSQL runs need BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test unless set).
// A busy machine still moves the ratios: CPU per create falls as more creates share a commit, so a build
// that gets fewer requests through pays more per request. Each round shows the highest 1-minute load
// average its runs started at; rounds above the core count (2 here) measure the neighbours too.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { abDir, median, prepareTree } from './ab/trees.mjs';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    only: { type: 'string', default: 'cqris-fresh,cstatus-id' },
    db: { type: 'string', default: 'sqlite,postgres' },
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help || positionals.length < 2) {
  process.stdout.write(
    `${readFileSync(fileURLToPath(import.meta.url), 'utf8')
      .split('\n')
      .slice(2, 9)
      .join('\n')
      .replace(/^\/\/ ?/gm, '')}\n`,
  );
  process.exit(args.help ? 0 : 2);
}
const ROUNDS = Number(args.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) fail('--rounds must be a positive whole number');
const SCENARIOS = args.only.split(',').map((s) => s.trim());
const DBS = args.db.split(',').map((s) => s.trim());
const env = { ...process.env };
if (DBS.includes('postgres')) env.BENCH_DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/test';

/** @param {string} message @returns {never} */
function fail(message) {
  process.stderr.write(`ab-cpu: ${message}\n`);
  process.exit(2);
}

/** One bench run of a tree; resolves to its report (the JSON it wrote). Its output goes to a log file. */
function bench(tree, logStream) {
  const argv = [
    join(tree.dir, 'scripts', 'bench.mjs'),
    '--only',
    SCENARIOS.join(','),
    '--db',
    DBS.join(','),
    '--duration',
    args.duration,
    '--connections',
    args.connections,
  ];
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, argv, { cwd: tree.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c) => {
      out += c;
      logStream.write(c);
    });
    child.stderr.on('data', (c) => logStream.write(c));
    child.once('error', reject);
    child.once('exit', (code) => {
      const file = /^wrote (.+\.json)$/m.exec(out)?.[1];
      if (code !== 0 || !file)
        return reject(new Error(`bench of ${tree.label} failed (exit ${code}); see ${logStream.path}`));
      resolveRun(JSON.parse(readFileSync(file, 'utf8')));
    });
  });
}

const resultOf = (report, db, scenario) => report.results.find((r) => r.db === db && r.scenario === scenario);
const cpuOf = (report, db, scenario) => resultOf(report, db, scenario)?.serverCpuUsPerReq ?? null;
/** The highest 1-minute load average either run saw at its start: above the core count, something else competed. */
const loadOf = (reports, db, scenario) => Math.max(...reports.map((r) => resultOf(r, db, scenario)?.loadAvg ?? 0));
async function main() {
  const trees = positionals.map((spec) => prepareTree(spec, fail));
  const name = (t) => String.fromCharCode(65 + trees.indexOf(t));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  mkdirSync(abDir, { recursive: true });
  const logPath = join(abDir, `ab-${stamp}.log`);
  const log = createWriteStream(logPath);
  const described = trees.map((t) => `${name(t)} = ${t.label} (${t.commit})`).join(', ');
  process.stderr.write(
    `ab-cpu: ${described}; ${ROUNDS} rounds of ${SCENARIOS.join(', ')} on ${DBS.join(', ')}; bench output in ${logPath}\n`,
  );

  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) {
    const order = trees.map((_, k) => trees[(k + i) % trees.length]);
    const reports = new Map();
    for (const tree of order) {
      process.stderr.write(`ab-cpu: round ${i + 1}/${ROUNDS}: ${name(tree)} (${tree.label})\n`);
      log.write(`\n===== round ${i + 1} ${name(tree)} ${tree.label} ${tree.commit}\n`);
      reports.set(tree, await bench(tree, log));
    }
    rounds.push({ first: name(order[0]), reports });
  }
  log.end();

  const summary = [];
  process.stdout.write(
    `\nserver CPU µs per request; ${described}; ${args.connections} connections, ${args.duration} s per scenario\n`,
  );
  for (const db of DBS) {
    for (const scenario of SCENARIOS) {
      for (let x = 0; x < trees.length; x++) {
        for (let y = x + 1; y < trees.length; y++) {
          const [a, b] = [trees[x], trees[y]];
          const rows = rounds.map((r, i) => {
            const ca = cpuOf(r.reports.get(a), db, scenario);
            const cb = cpuOf(r.reports.get(b), db, scenario);
            return {
              round: i + 1,
              first: r.first,
              a: ca,
              b: cb,
              ratio: ca && cb ? cb / ca : null,
              load: loadOf([r.reports.get(a), r.reports.get(b)], db, scenario),
            };
          });
          const ratios = rows.map((r) => r.ratio).filter((v) => v !== null);
          const higher = rows.filter((r) => r.ratio !== null && r.ratio > 1).length;
          const med = ratios.length ? median(ratios) : null;
          const [na, nb] = [name(a), name(b)];
          summary.push({ db, scenario, a: a.label, b: b.label, rounds: rows, medianRatio: med, bHigherIn: higher });
          process.stdout.write(
            `\n${db} ${scenario}: ${nb} (${b.label}) against ${na} (${a.label})\n  round first      ${na}      ${nb}    ${nb}/${na}   load\n`,
          );
          for (const r of rows) {
            const ratio = r.ratio === null ? '     -' : r.ratio.toFixed(3).padStart(6);
            process.stdout.write(
              `  ${String(r.round).padStart(5)} ${r.first.padStart(5)} ${String(r.a ?? '-').padStart(6)} ${String(r.b ?? '-').padStart(6)} ${ratio} ${String(r.load).padStart(6)}\n`,
            );
          }
          process.stdout.write(
            `  median ${nb}/${na} ${med === null ? '-' : med.toFixed(3)}; ${nb} higher in ${higher} of ${ratios.length} rounds\n`,
          );
        }
      }
    }
  }
  const outFile = join(abDir, `ab-${stamp}.json`);
  const info = (t) => ({ name: name(t), label: t.label, commit: t.commit, dir: t.dir });
  writeFileSync(
    outFile,
    `${JSON.stringify({ trees: trees.map(info), options: { ...args, rounds: ROUNDS }, summary }, null, 2)}\n`,
  );
  process.stdout.write(`\nwrote ${outFile}\n`);
}

await main().catch((err) => {
  process.stderr.write(`ab-cpu: ${err.stack ?? err}\n`);
  process.exitCode = 1;
});
