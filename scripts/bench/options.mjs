// @ts-check
// The bench's command line (its help is the header of scripts/bench.mjs) and the paths it runs.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const bin = join(root, 'bin', 'qris-gateway.mjs');
export const loadScript = join(root, 'scripts', 'bench-load.mjs');
export const baselineScript = join(root, 'scripts', 'bench-baseline.mjs');

export const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    db: { type: 'string' },
    log: { type: 'string' },
    compare: { type: 'string' },
    scale: { type: 'boolean', default: false },
    overload: { type: 'boolean', default: false },
    'scale-rows': { type: 'string', default: '1000000' },
    soak: { type: 'string' },
    only: { type: 'string' },
    'prep-transactions': { type: 'string', default: '3000' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  process.stdout.write(
    `${readFileSync(join(root, 'scripts', 'bench.mjs'), 'utf8')
      .split('\n')
      .slice(2, 10)
      .join('\n')
      .replace(/^\/\/ ?/gm, '')}\n`,
  );
  process.exit(0);
}
export const DURATION = Number(args.duration);
export const CONNECTIONS = Number(args.connections);
export const SCALE_ROWS = Number(args['scale-rows']);
export const PREP = Number(args['prep-transactions']);
export const SOAK_MINUTES = args.soak === undefined ? null : Number(args.soak);
for (const [name, v] of /** @type {Array<[string, number]>} */ ([
  ['duration', DURATION],
  ['connections', CONNECTIONS],
  ['scale-rows', SCALE_ROWS],
  ['prep-transactions', PREP],
])) {
  if (!Number.isFinite(v) || v <= 0) fail(`--${name} must be a positive number`);
}
if (SOAK_MINUTES !== null && !(SOAK_MINUTES > 0)) fail('--soak must be a positive number of minutes');
export const PG_URL = process.env.BENCH_DATABASE_URL || null;
/** --only: the scenarios to run (all when absent). */
export const ONLY = args.only ? new Set(args.only.split(',').map((x) => x.trim())) : null;
export const DBS = (args.db ?? (PG_URL ? 'sqlite,postgres' : 'sqlite')).split(',').map((s) => s.trim());
for (const db of DBS) if (db !== 'sqlite' && db !== 'postgres') fail(`--db: unknown database ${db}`);
if (DBS.includes('postgres') && !PG_URL) fail('--db postgres needs BENCH_DATABASE_URL');

export function fail(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}
