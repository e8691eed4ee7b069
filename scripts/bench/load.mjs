// @ts-check
// Running one scenario: a load-generator process of its own (bench-load.mjs) against a server, with
// the server's CPU and memory read around it.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { CONNECTIONS, DURATION, loadScript, root } from './options.mjs';
import { cpuMsOf, memoryOf, postgresCpuMs, round, rssSampler } from './measure.mjs';
import { sleep, track, workDir } from './processes.mjs';
import { startBaseline } from './servers.mjs';

let specCounter = 0;
/** Runs one scenario from a separate load-generator process while sampling the server's memory. */
export async function runLoad(server, spec) {
  const specFile = join(workDir, `spec-${specCounter++}.json`);
  writeFileSync(specFile, JSON.stringify({ connections: CONNECTIONS, duration: DURATION, url: server.url, ...spec }));
  if (server.statementsFile) await statementsSince(server);
  const loadAvg = round(loadavg()[0], 2);
  const cpuBefore = cpuMsOf(server.pid);
  const pgBefore = server.postgres ? postgresCpuMs() : null;
  const sampler = rssSampler(server.pid);
  const child = track(
    spawn(process.execPath, [loadScript, specFile], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] }),
  );
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
  const statements = server.statementsFile ? await statementsSince(server) : null;
  const hwm = memoryOf(server.pid)?.hwm ?? null;
  // Server CPU per request is steadier than req/s when something else competes for the two cores, and
  // the 1-minute load average at the start tells when that happened.
  const serverCpuUsPerReq =
    cpuBefore !== null && cpuAfter !== null && result.requests > 0
      ? round(((cpuAfter.total - cpuBefore.total) * 1000) / result.requests, 0)
      : null;
  const serverSystemCpuUsPerReq =
    cpuBefore !== null && cpuAfter !== null && result.requests > 0
      ? round(((cpuAfter.system - cpuBefore.system) * 1000) / result.requests, 0)
      : null;
  const dbCpuUsPerReq =
    pgBefore !== null && result.requests > 0 ? round(((pgAfter - pgBefore) * 1000) / result.requests, 0) : null;
  return {
    ...result,
    peakRssMB: round(memory.peak, 1),
    serverHwmMB: hwm === null ? null : round(hwm, 1),
    serverCpuUsPerReq,
    serverSystemCpuUsPerReq,
    dbCpuUsPerReq,
    ...(statements ? statementsPerRequest(statements, result.requests) : {}),
    loadAvg,
    rssSamples: memory.samples,
  };
}

/**
 * What the gateway's statement counter (statement-counter.mjs) counted since it was last asked: it writes
 * its counts on SIGUSR2 and starts again. Null if it did not answer within five seconds.
 */
async function statementsSince(server) {
  rmSync(server.statementsFile, { force: true });
  process.kill(server.pid, 'SIGUSR2');
  for (let waited = 0; waited < 5000; waited += 20) {
    if (existsSync(server.statementsFile)) {
      try {
        return /** @type {Array<[string, number]>} */ (JSON.parse(readFileSync(server.statementsFile, 'utf8')));
      } catch {
        // still being written
      }
    }
    await sleep(20);
  }
  return null;
}

/** Statements per request, in all and the most frequent ones (on PostgreSQL each is a round trip). */
function statementsPerRequest(counts, requests) {
  if (requests <= 0) return {};
  const total = counts.reduce((sum, [, n]) => sum + n, 0);
  return {
    statementsPerReq: round(total / requests, 3),
    statements: counts
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([text, n]) => ({ perReq: round(n / requests, 3), text })),
  };
}

export function row(db, scenario, r, baselineRps, note) {
  const { rssSamples, ...kept } = r;
  return {
    db,
    scenario,
    ...kept,
    ratio: baselineRps ? round(r.reqPerSec / baselineRps, 3) : null,
    ...(note ? { note } : {}),
  };
}

/** The bare Fastify route, warmed up, then measured once. */
export async function measureBaseline() {
  const baseline = await startBaseline();
  try {
    process.stderr.write('bench: baseline\n');
    await runLoad(baseline, {
      name: 'warmup',
      kind: 'static',
      path: '/api/payment-gateway/cqris?amount=1',
      duration: 2,
    });
    return await runLoad(baseline, {
      name: 'baseline',
      kind: 'static',
      path: '/api/payment-gateway/cqris?amount=10000&apikey=sk_live_bench',
    });
  } finally {
    await baseline.stop();
  }
}
