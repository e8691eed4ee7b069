// A fuzz run: N hostile requests from the route table (a fixed seed each, so any one can be made again),
// every answer checked, then the gateway's health and its seeded rows. Used by the suite and `npm run fuzz`.
import fc from 'fast-check';
import { problemsOf } from './checks.js';
import { anyRequest, requestFor, type FuzzRequest } from './generators.js';
import { send } from './send.js';
import { seededChanges, type FuzzWorld } from './world.js';

export interface FuzzOptions {
  cases: number;
  seed: number;
  /** Requests in flight at once (default 4). */
  concurrency?: number;
  /** Only these case numbers (a failure's repro). */
  only?: readonly number[];
  /** Called every `every` cases with the count so far. */
  progress?: { every: number; report(done: number): void };
}

export interface FuzzFailure {
  case: number;
  seed: number;
  request: string;
  problems: string[];
}

export interface FuzzReport {
  cases: number;
  statuses: Map<number, number>;
  fiveXx: number;
  /** The route table entries the run made requests for (`GET /checkout/:trxid`). */
  routes: Set<string>;
  /** Requests node:http itself would not send (a header it cannot write): not counted as cases. */
  unsent: number;
  failures: FuzzFailure[];
  /** Problems found after the run: health, a create, seeded rows, Object.prototype. */
  afterwards: string[];
  ms: number;
}

/** The case's own seed: case n of a run with seed s is the same request whatever else the run does. */
export const caseSeed = (seed: number, n: number): number =>
  (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(n + 1, 0xc2b2ae35)) | 0;

export function describeRequest(req: FuzzRequest): string {
  const path = req.path.length > 160 ? `${req.path.slice(0, 160)}... (${req.path.length} chars)` : req.path;
  const headers = Object.entries(req.headers)
    .map(([k, v]) => `${k}: ${v.length > 60 ? `${v.slice(0, 60)}... (${v.length})` : v}`)
    .join(' | ');
  return `[${req.identity}] ${req.method} ${JSON.stringify(path)} (route ${req.route}) body ${req.bodyKind}${req.body ? ` ${req.body.length} B` : ''}; headers ${headers}`;
}

export async function runFuzz(w: FuzzWorld, options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const arbitrary = anyRequest(w);
  // The first cases tour the route table, one route each, so that every route is reached whatever the
  // seed (a route among hundreds may otherwise go unsampled in a few thousand cases); the rest sample.
  const tour = w.routes.map((route) =>
    fc.constantFrom(...w.identities).chain((identity) => requestFor(w, route, identity)),
  );
  const arbitraryOf = (n: number) => tour[n] ?? arbitrary;
  const report: FuzzReport = {
    cases: 0,
    statuses: new Map(),
    routes: new Set(),
    fiveXx: 0,
    unsent: 0,
    failures: [],
    afterwards: [],
    ms: 0,
  };
  const numbers = options.only ?? Array.from({ length: options.cases }, (_, i) => i);
  let next = 0;
  const worker = async () => {
    while (next < numbers.length) {
      const n = numbers[next++]!;
      const seed = caseSeed(options.seed, n);
      const [req] = fc.sample(arbitraryOf(n), { seed, numRuns: 1 });
      const answer = await send(w.port, req!);
      if (answer.status === -1) {
        report.unsent += 1;
        continue;
      }
      report.cases += 1;
      report.routes.add(req!.route);
      if (answer.status !== null) report.statuses.set(answer.status, (report.statuses.get(answer.status) ?? 0) + 1);
      if (answer.status !== null && answer.status >= 500) report.fiveXx += 1;
      const problems = problemsOf(req!, answer);
      if (problems.length > 0)
        report.failures.push({ case: n, seed: options.seed, request: describeRequest(req!), problems });
      if (options.progress && report.cases % options.progress.every === 0) options.progress.report(report.cases);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  report.afterwards = await afterwards(w);
  report.ms = performance.now() - started;
  return report;
}

/** The gateway is healthy after the run, a create still works, nothing seeded changed, nothing polluted. */
async function afterwards(w: FuzzWorld): Promise<string[]> {
  const problems: string[] = [];
  const health = await fetch(`http://127.0.0.1:${w.port}/healthz`).catch((err: Error) => err);
  if (health instanceof Error || health.status !== 200)
    problems.push(`/healthz: ${health instanceof Error ? health.message : health.status}`);
  const create = await fetch(`http://127.0.0.1:${w.port}/api/payment-gateway/cqris?amount=15000`, {
    headers: { 'x-api-key': w.world.merchants.A.testKey },
  }).catch((err: Error) => err);
  if (create instanceof Error || (create.status !== 200 && create.status !== 201))
    problems.push(
      `a create afterwards: ${create instanceof Error ? create.message : `${create.status} ${await create.text()}`}`,
    );
  problems.push(...seededChanges(w.before, await w.world.snapshot()));
  const polluted = Object.keys(Object.prototype).concat(Object.keys(Array.prototype));
  if (polluted.length > 0) problems.push(`Object.prototype or Array.prototype gained ${polluted.join(', ')}`);
  return problems;
}

/** The report as text: totals, statuses, 5xx, and each failure with its repro. */
export function formatReport(report: FuzzReport, repro: (f: FuzzFailure) => string): string {
  const lines = [
    `cases: ${report.cases} in ${(report.ms / 1000).toFixed(1)} s (${report.unsent} not sendable by node:http, skipped)`,
    `statuses: ${[...report.statuses]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s}=${n}`)
      .join(' ')}`,
    `5xx: ${report.fiveXx}`,
  ];
  lines.push(`failures: ${report.failures.length}`);
  const shown = Number(process.env.FUZZ_SHOW ?? 30);
  for (const f of report.failures.slice(0, shown))
    lines.push(`  case ${f.case}: ${f.problems.join('; ')}\n    ${f.request}\n    repro: ${repro(f)}`);
  if (report.failures.length > shown) lines.push(`  ... and ${report.failures.length - shown} more`);
  lines.push(
    `afterwards: ${report.afterwards.length === 0 ? 'healthy, a create works, seeded rows unchanged' : report.afterwards.join('; ')}`,
  );
  return lines.join('\n');
}
