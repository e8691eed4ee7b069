// @ts-check
// What a server costs, read from /proc: its CPU time, PostgreSQL's, and its memory while a scenario runs.
import { readdirSync, readFileSync } from 'node:fs';

/** VmRSS and VmHWM of a process, in MiB, or null once it is gone. */
export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/**
 * CPU time a process has used so far, in milliseconds (clock ticks are 100 Hz on Linux): in all (user +
 * system) and the system (kernel) part alone, which on loopback also runs the receiving side of a socket
 * write. Null once the process is gone.
 */
export function cpuMsOf(pid) {
  try {
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const system = Number(fields[12]) * 10;
    return { total: Number(fields[11]) * 10 + system, system };
  } catch {
    return null;
  }
}

/** CPU milliseconds used so far by every PostgreSQL server process on this machine (the database's share
 * of a request's cost: the gateway's own figure leaves it out). */
export function postgresCpuMs() {
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
export function rssSampler(pid, everyMs = 100) {
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

export const round = (n, digits = 0) =>
  n === null || n === undefined || !Number.isFinite(n) ? n : Number(n.toFixed(digits));
