// @ts-check
// --overload: what the gateway does with more creates than it can make. First a short closed-loop run
// finds the create rate this machine sustains; then an open loop at half that rate (before), at four times
// it for 30 s (during), and at half again (after), each counting accepted (2xx) and shed (503) creates
// and timing the accepted ones alone.
import { runLoad } from './load.mjs';
import { round } from './measure.mjs';
import { CONNECTIONS } from './options.mjs';
import { prepareDatabase, startGateway } from './servers.mjs';

const PHASES = [
  { name: 'before', factor: 0.5, seconds: 10 },
  { name: 'during', factor: 4, seconds: 30 },
  { name: 'after', factor: 0.5, seconds: 10 },
];

export async function overload(kind, logChoice) {
  const database = await prepareDatabase(kind, `overload-${kind}`);
  const gateway = await startGateway(database, logChoice ?? '/dev/null');
  const headers = { 'x-api-key': database.apiKey };
  try {
    // As many connections as the other scenarios (--connections, 50): group commit makes more creates a
    // second the more arrive together, so a handful of connections would understate the rate.
    process.stderr.write(
      `bench: ${kind}: overload: finding the sustainable create rate (closed loop, ${CONNECTIONS} connections, 10 s)\n`,
    );
    const probe = await runLoad(gateway, { name: 'overload-probe', kind: 'fresh', duration: 10, headers });
    const sustainable = Math.max(10, Math.round(probe.ok2xx / probe.seconds));
    const phases = [];
    let offset = 1_000_000;
    for (const phase of PHASES) {
      const rate = Math.round(sustainable * phase.factor);
      // autocannon paces each connection on its own (rate / connections a second, all started together),
      // so every connection sends 5 a second: bursts stay small, and at 4x the loop stays open as long as
      // answers take under 200 ms (beyond that the offered rate falls, as real clients' would).
      const connections = Math.min(2000, Math.max(10, Math.round(rate / 5)));
      process.stderr.write(
        `bench: ${kind}: overload ${phase.name}: ${rate} creates/s offered for ${phase.seconds} s on ${connections} connections\n`,
      );
      const r = await runLoad(gateway, {
        name: `overload-${phase.name}`,
        kind: 'fresh-timed',
        duration: phase.seconds,
        connections,
        rate,
        freshOffset: offset,
        headers,
      });
      offset += 1_000_000;
      phases.push({
        phase: phase.name,
        offered: rate,
        acceptedPerSec: round(r.accepted / r.seconds, 0),
        shedPerSec: round(r.shed / r.seconds, 0),
        acceptedP50Ms: r.acceptedMs.p50,
        acceptedP99Ms: r.acceptedMs.p99,
        otherErrors: r.requests - r.accepted - r.shed,
        timeouts: r.timeouts,
        peakRssMB: r.peakRssMB,
      });
    }
    return { db: kind, sustainable, limits: overloadEnv(), phases };
  } finally {
    await gateway.stop();
  }
}

/** The OVERLOAD_* settings the gateway was given (BENCH_OVERLOAD_*), or its defaults. */
function overloadEnv() {
  const given = Object.entries(process.env).filter(([name]) => name.startsWith('BENCH_OVERLOAD_'));
  return given.length
    ? Object.fromEntries(given.map(([name, value]) => [name.slice('BENCH_'.length), value]))
    : 'defaults';
}

export function printOverload(result) {
  process.stdout.write(
    `overload ${result.db}: sustainable ${result.sustainable} creates/s (closed loop, ${CONNECTIONS} connections); limits: ${JSON.stringify(result.limits)}\n`,
  );
  process.stdout.write('phase   offered/s  accepted/s  shed/s  accepted p50 ms  accepted p99 ms  other  timeouts\n');
  for (const p of result.phases) {
    process.stdout.write(
      `${p.phase.padEnd(7)} ${String(p.offered).padStart(9)}  ${String(p.acceptedPerSec).padStart(10)}  ${String(p.shedPerSec).padStart(6)}  ${String(p.acceptedP50Ms).padStart(15)}  ${String(p.acceptedP99Ms).padStart(15)}  ${String(p.otherErrors).padStart(5)}  ${String(p.timeouts).padStart(8)}\n`,
    );
  }
}
