// `npm run fuzz -- --cases N --seed S [--concurrency C] [--case n,...]`: the route-table fuzz of the suite
// (test/integration/security/fuzz.test.ts), run longer. A seeded gateway on a fresh database (SQLite; PostgreSQL
// with QG_TEST_DATABASE=postgres and TEST_DATABASE_URL), N hostile requests over loopback, then the totals.
// Exits 1 on any violation: a 5xx (but a 503 with Retry-After), a leak, a dropped connection, an unhealthy
// gateway afterwards or a seeded row changed. `--case n` makes one failure's request again.
import { register } from 'node:module';

// The test helpers the world is built with import vitest for their test-only parts (afterEach), and vitest
// refuses to load outside its runner: here 'vitest' is a stub whose functions do nothing.
const STUB =
  'export const afterEach = () => {}; export const afterAll = () => {}; export const beforeAll = () => {}; export const expect = () => {};';
const HOOKS = `export async function resolve(specifier, context, next) {
  if (specifier === 'vitest') return { url: 'data:text/javascript,${encodeURIComponent(STUB)}', shortCircuit: true };
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(HOOKS)}`);
const { formatReport, runFuzz } = await import('../test/fuzz/run.js');
const { startFuzzWorld } = await import('../test/fuzz/world.js');

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return undefined;
  const value = process.argv[i + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`);
  return value;
}

function count(name: string, fallback: number): number {
  const raw = option(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`--${name} must be an integer, not ${raw}`);
  return n;
}

/** The process's memory (the gateway's and the fuzzer's: they share it); the heap after a full GC with --expose-gc. */
function memory(): string {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return `RSS ${Math.round(rss / 1048576)} MB, heap ${Math.round(heapUsed / 1048576)} MB`;
}

async function main(): Promise<number> {
  const cases = count('cases', 10_000);
  const seed = count('seed', Date.now() % 1_000_000_007);
  const concurrency = count('concurrency', 4);
  const only = option('case')?.split(',').map(Number);
  process.stdout.write(
    `fuzz: ${only ? `case ${only.join(',')}` : `${cases} cases`}, seed ${seed}, ${process.env.QG_TEST_DATABASE === 'postgres' ? 'PostgreSQL' : 'SQLite'}\n`,
  );
  const world = await startFuzzWorld();
  try {
    const started = Date.now();
    const report = await runFuzz(world, {
      cases,
      seed,
      concurrency,
      ...(only ? { only } : {}),
      progress: {
        every: 5000,
        report: (done) =>
          process.stdout.write(`  ${done} cases, ${Math.round((Date.now() - started) / 1000)} s, ${memory()}\n`),
      },
    });
    process.stdout.write(`${formatReport(report, (f) => `npm run fuzz -- --seed ${f.seed} --case ${f.case}`)}\n`);
    return report.failures.length === 0 && report.afterwards.length === 0 ? 0 : 1;
  } finally {
    await world.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`fuzz: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(2);
  },
);
