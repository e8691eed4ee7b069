// @ts-check
// Running one scenario: a load-generator process of its own (bench-load.mjs) against a server, with
// the server's CPU and memory read around it.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { CONNECTIONS, DURATION, loadScript, root } from './options.mjs';
import { cpuMsOf, memoryOf, postgresCpuMs, round, rssSampler, systemCpuMsOf } from './measure.mjs';
import { track, workDir } from './processes.mjs';
import { startBaseline } from './servers.mjs';

let specCounter = 0;
/** Runs one scenario from a separate load-generator process while sampling the server's memory. */
export async function runLoad(server, spec) {
  const specFile = join(workDir, `spec-${specCounter++}.json`);
  writeFileSync(specFile, JSON.stringify({ connections: CONNECTIONS, duration: DURATION, url: server.url, ...spec }));
  const loadAvg = round(loadavg()[0], 2);
  const cpuBefore = cpuMsOf(server.pid);
  const sysBefore = systemCpuMsOf(server.pid);
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
  const sysAfter = systemCpuMsOf(server.pid);
  const pgAfter = server.postgres ? postgresCpuMs() : null;
  if (code !== 0) throw new Error(`load generator failed for ${spec.name} (exit ${code})`);
  const result = JSON.parse(out.trim().split('\n').at(-1));
  const hwm = memoryOf(server.pid)?.hwm ?? null;
  // Server CPU per request is steadier than req/s when something else competes for the two cores, and
  // the 1-minute load average at the start tells when that happened.
  const serverCpuUsPerReq =
    cpuBefore !== null && cpuAfter !== null && result.requests > 0
      ? round(((cpuAfter - cpuBefore) * 1000) / result.requests, 0)
      : null;
  const serverSystemCpuUsPerReq =
    sysBefore !== null && sysAfter !== null && result.requests > 0
      ? round(((sysAfter - sysBefore) * 1000) / result.requests, 0)
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
    loadAvg,
    rssSamples: memory.samples,
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
