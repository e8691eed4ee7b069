// "Two gateways in one process share nothing": every module under src/ keeps what it remembers between
// requests in deps.state or on the Database, never in a module. This scans every source for the
// usual shapes of module state: a top-level `let`/`var`, or a top-level collection or emitter that can be
// written to. A constant collection declared ReadonlySet/ReadonlyMap is a table, not state.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, sourceFiles } from '../helpers/source-files.js';

const ROOT = REPO_ROOT;
const SCANNED = ['src'];

/** Files allowed module state, each with the reason. */
const ALLOWED: Record<string, string> = {
  'src/web/static-assets.ts':
    'a memo of the bytes of files shipped with the package: the same for every gateway, never changed',
  'src/hashing/password-hasher.ts':
    "the process's pool of hashing threads: CPU-bound work sized to the machine's cores, which two gateways in one process must share rather than double; it holds no gateway's data between calls",
  'src/hashing/passwords.ts': "a memo of the decoy hash of no one's password (random, the same use for every gateway)",
  'src/imaging/read-qr-image.ts':
    "the lazily loaded decoder packages and the process's pool of decoder threads, shared for the same reason as the hashing threads",
  'src/domain/ids.ts': 'a pool of CSPRNG bytes, each used once: no gateway can see or change what another draws',
  'src/domain/iso-time.ts': "a memo of today's date prefix, a pure function of the clock's value",
  'src/domain/qris/qris.ts':
    'a WeakSet marking parse results already verified: keyed by the object itself, so nothing is shared',
  'src/http/route-table.ts': 'a WeakMap keyed by the Fastify instance: each app has its own entry',
  'src/dev/snap-acquirer/notify.ts':
    "a WeakMap keyed by the simulator partner object (the test acquirer's tokens): each partner has its own",
  'src/storage/engine/checkpointer.ts':
    "the `let` is inside the checkpoint thread's source, a string run in a worker of its own",
  'src/storage/backup-files.ts': "the `let` is inside the copy thread's source, a string run in a worker of its own",
};

const MUTABLE = [
  /^(?:export )?(?:let|var) /,
  /^(?:export )?const \w+(?:: (?!Readonly)[^=]+)? = new (?:Map|Set|WeakMap|WeakSet|EventEmitter)\b/,
  /^(?:export )?const \w+(?:: [^=]+)? = \[\];/,
];

describe('no module-level mutable state anywhere in src/', () => {
  it('finds none outside the allow-list', () => {
    const found: string[] = [];
    for (const file of SCANNED.flatMap((dir) => sourceFiles(dir))) {
      const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (MUTABLE.some((shape) => shape.test(line)) && !(file in ALLOWED))
          found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('the check would see the shapes it looks for', () => {
    const caught = [
      'let cache = null;',
      'const tokens = new Map<string, string>();',
      'export const seen: Set<string> = new Set();',
      'const local = new EventEmitter();',
    ];
    const allowed = [
      'const FIELDS: ReadonlySet<string> = new Set([',
      '  let inside = 0;',
      'const folder = new URL(x);',
    ];
    for (const line of caught)
      expect(
        MUTABLE.some((shape) => shape.test(line)),
        line,
      ).toBe(true);
    for (const line of allowed)
      expect(
        MUTABLE.some((shape) => shape.test(line)),
        line,
      ).toBe(false);
  });

  it('every allowed file still exists', () => {
    const all = new Set(SCANNED.flatMap((dir) => sourceFiles(dir)).map((f) => relative('.', f)));
    for (const file of Object.keys(ALLOWED)) expect(all.has(file), file).toBe(true);
  });
});
