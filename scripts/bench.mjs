#!/usr/bin/env node
// @ts-check
// `npm run bench`: measures the gateway against a bare Fastify route in the same run, on this machine.
//
//   node scripts/bench.mjs [--duration S] [--connections N] [--db sqlite,postgres] [--log FILE]
//                          [--compare FILE] [--scale [--scale-rows N]] [--soak MINUTES]
//                          [--only cqris-fresh,cstatus-id,...]   (BENCH_CPU_PROF=DIR profiles the gateway)
//   BENCH_RATE_LIMIT_PER_MINUTE=N (and BENCH_REDIS_URL) measure the gateway with its rate limit on.
//   --overload: creates at 4x the sustainable rate for 30 s, with before and after (first --db only);
//   BENCH_OVERLOAD_MAX_EVENT_LOOP_DELAY_MS=N (any BENCH_OVERLOAD_*) sets the gateway's OVERLOAD_* limits.
//
// Every server and every load generator is a child process of its own: the load generator must not
// share the server's event loop, and the gateway runs exactly as `qris-gateway serve` does in
// production (info logging written to a file, synchronous=FULL, no demo merchant, no rate limit unless asked).
// Everything it starts is bounded in time and killed, and every temporary directory or PostgreSQL
// schema it creates is removed, on success, failure or Ctrl-C.
//
// The parts live in scripts/bench/: options.mjs (flags), processes.mjs (children and cleanup), servers.mjs
// (the baseline and gateway processes, their databases), load.mjs (one scenario), measure.mjs (CPU and
// memory from /proc), scenarios.mjs, scale.mjs and soak.mjs (the three modes) and report.mjs (the output).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { args, bin, CONNECTIONS, DBS, DURATION, root, SCALE_ROWS, SOAK_MINUTES } from './bench/options.mjs';
import { cleanup, sleep } from './bench/processes.mjs';
import { measureBaseline, row } from './bench/load.mjs';
import { round } from './bench/measure.mjs';
import { gatewayScenarios } from './bench/scenarios.mjs';
import { scaleScenarios } from './bench/scale.mjs';
import { soak } from './bench/soak.mjs';
import { overload, printOverload } from './bench/overload.mjs';
import { commitInfo, machineInfo, printChecks, printCompare, printTable, targetChecks } from './bench/report.mjs';

async function main() {
  const startedAt = new Date();
  // Build dist/ first (the entry point compiles when sources changed), so no timing includes tsc.
  const build = spawnSync(process.execPath, [bin, '--help'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 300_000,
  });
  if (!existsSync(join(root, 'dist', 'cli', 'bin.js')) || build.error) throw new Error('could not build dist/');

  const mode = SOAK_MINUTES !== null ? 'soak' : args.overload ? 'overload' : args.scale ? 'scale' : 'standard';
  process.stderr.write(
    `bench: ${mode} run, ${CONNECTIONS} connections, ${DURATION} s per scenario, databases: ${DBS.join(', ')}\n`,
  );
  const report = {
    startedAt: startedAt.toISOString(),
    commit: commitInfo(),
    mode,
    options: {
      duration: DURATION,
      connections: CONNECTIONS,
      databases: DBS,
      log: args.log ?? (mode === 'soak' ? '/dev/null' : 'temp file'),
    },
    machine: machineInfo(),
    results: [],
    checks: [],
  };

  let baselineRps = null;
  if (mode !== 'soak' && mode !== 'overload') {
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
  } else if (mode === 'overload') {
    report.overload = await overload(DBS[0], args.log);
  } else {
    report.soak = await soak(DBS[0], SOAK_MINUTES, args.log);
  }
  report.finishedAt = new Date().toISOString();

  process.stdout.write(
    `\nqris-gateway bench ${report.startedAt} commit ${report.commit ?? 'unknown'} (${report.machine.cpus}x ${report.machine.cpuModel}, node ${report.machine.node})\n`,
  );
  process.stdout.write(
    `${CONNECTIONS} connections, ${DURATION} s per scenario; ratio = req/s over the baseline's in this run${report.baselineMeanRps ? ` (the mean of its readings before and after: ${report.baselineMeanRps} req/s)` : ''}\n\n`,
  );
  if (report.results.length) printTable(report.results);
  for (const r of report.results.filter((x) => x.outcomes))
    process.stdout.write(`${r.db} payment-storm outcomes: ${JSON.stringify(r.outcomes)}\n`);
  for (const [db, log] of Object.entries(report.logs ?? {}))
    if (log.bytes !== null) process.stdout.write(`${db} access log: ${log.bytesPerRequest} bytes per request\n`);
  if (report.checks.length) {
    process.stdout.write('\n');
    printChecks(report.checks);
  }
  if (report.overload) printOverload(report.overload);
  if (report.soak) {
    const s = report.soak;
    process.stdout.write(
      `soak ${s.db} ${s.minutes} min: ${Math.round(s.reqPerSec)} req/s, p99 ${s.latencyMs.p99} ms, non2xx ${s.non2xx}; RSS first third ${s.firstThirdMB} MiB, last third ${s.lastThirdMB} MiB (${s.growthPct}%): ${s.flat ? 'flat' : 'GROWING'}\n`,
    );
  }

  const outDir = join(root, 'bench-results');
  mkdirSync(outDir, { recursive: true });
  const outFile = join(
    outDir,
    `${startedAt.toISOString().replace(/[:.]/g, '-')}${mode === 'standard' ? '' : `-${mode}`}.json`,
  );
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
