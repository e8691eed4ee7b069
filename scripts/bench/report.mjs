// @ts-check
// The report: the commit and machine it ran on, the table, the targets met or missed, a comparison with an earlier run.
import { existsSync, readFileSync } from 'node:fs';
import { cpus, hostname, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { round } from './measure.mjs';
import { root } from './options.mjs';

export function commitInfo() {
  // Read .git directly (no git process): HEAD, then the branch ref or packed-refs.
  try {
    const head = readFileSync(join(root, '.git', 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref: ')) return head;
    const ref = head.slice(5);
    const loose = join(root, '.git', ref);
    if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
    const packed = readFileSync(join(root, '.git', 'packed-refs'), 'utf8');
    return (
      packed
        .split('\n')
        .find((l) => l.endsWith(` ${ref}`))
        ?.split(' ')[0] ?? null
    );
  } catch {
    return null;
  }
}

export function machineInfo() {
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

export const pad = (s, n) => String(s).padEnd(n);
export const lpad = (s, n) => String(s).padStart(n);
export function printTable(rows) {
  // BENCH_STATEMENTS=1: statements sent per request (round trips on PostgreSQL), from the gateway's counter.
  const counted = rows.some((r) => r.statementsPerReq != null);
  const head = `${pad('db', 9)}${pad('scenario', 22)}${lpad('req/s', 9)}${lpad('p50 ms', 8)}${lpad('p99 ms', 8)}${lpad('non2xx', 8)}${lpad('RSS MiB', 9)}${lpad('ratio', 7)}${lpad('cpu µs/req', 11)}${lpad('db µs/req', 10)}${lpad('load', 6)}${counted ? lpad('stmt/req', 10) : ''}`;
  const lines = [head, '-'.repeat(head.length)];
  for (const r of rows) {
    lines.push(
      `${pad(r.db, 9)}${pad(r.scenario, 22)}${lpad(Math.round(r.reqPerSec), 9)}${lpad(r.latencyMs.p50, 8)}${lpad(r.latencyMs.p99, 8)}${lpad(r.non2xx, 8)}${lpad(r.peakRssMB, 9)}${lpad(r.ratio === null ? '' : r.ratio.toFixed(2), 7)}${lpad(r.serverCpuUsPerReq ?? '', 11)}${lpad(r.dbCpuUsPerReq ?? '', 10)}${lpad(r.loadAvg ?? '', 6)}${counted ? lpad(r.statementsPerReq ?? '', 10) : ''}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * The speed targets (issue 40's table): ratios to the baseline measured in the same run, the create's p99
 * against the baseline's own p99 (the mean of its two readings), and on PostgreSQL the database's own CPU
 * per payment report.
 */
const TARGETS = {
  sqlite: { storm: 0.2, fresh: 0.3, status: 0.7, p99Times: 5 },
  postgres: { storm: 0.1, fresh: 0.25, status: 0.5, p99Times: 8, stormDbUs: 300 },
};

export function targetChecks(rows) {
  const get = (db, s) => rows.find((r) => r.db === db && r.scenario === s);
  const baselineP99s = rows.filter((r) => r.db === 'fastify' && r.latencyMs?.p99 != null).map((r) => r.latencyMs.p99);
  const baselineP99 = baselineP99s.length ? baselineP99s.reduce((a, b) => a + b, 0) / baselineP99s.length : null;
  const checks = [];
  for (const [db, t] of Object.entries(TARGETS)) {
    // The floor: /healthz touches nothing, so no API request of this build can reach a higher ratio on this
    // machine; a target above it asks for less than the gateway's every-request cost (hooks, access line).
    const floor = get(db, 'healthz');
    const ratio = (scenario, min) => {
      const r = get(db, scenario);
      if (r)
        checks.push({
          db,
          target: `${scenario} req/s >= ${min} of baseline`,
          value: r.ratio,
          ok: r.ratio >= min,
          ...(floor
            ? { note: `the floor (healthz) ${floor.ratio}${min > floor.ratio ? ', below the target' : ''}` }
            : {}),
        });
    };
    ratio('payment-storm', t.storm);
    ratio('cqris-fresh', t.fresh);
    ratio('cstatus-id', t.status);
    const fresh = get(db, 'cqris-fresh');
    if (fresh && baselineP99) {
      const limit = Math.round(baselineP99 * t.p99Times * 10) / 10;
      checks.push({
        db,
        target: `cqris-fresh p99 <= ${t.p99Times}x the baseline's p99 (${limit} ms)`,
        value: fresh.latencyMs.p99,
        ok: fresh.latencyMs.p99 <= limit,
      });
    }
    const storm = get(db, 'payment-storm');
    if (storm && t.stormDbUs && storm.dbCpuUsPerReq != null) {
      checks.push({
        db,
        target: `payment-storm CPU inside PostgreSQL <= ${t.stormDbUs} µs per report`,
        value: storm.dbCpuUsPerReq,
        ok: storm.dbCpuUsPerReq <= t.stormDbUs,
      });
    }
  }
  return checks;
}

export function printChecks(checks) {
  for (const c of checks)
    process.stdout.write(
      `${c.ok ? 'MET ' : 'MISS'}  ${pad(c.db, 9)}${c.target}: ${c.value}${c.note ? ` (${c.note})` : ''}\n`,
    );
}

export function printCompare(file, rows) {
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
