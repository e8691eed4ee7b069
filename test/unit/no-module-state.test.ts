// "Two gateways in one process share nothing": services, payment sources and web keep what they remember
// between requests in deps.state or on the Database, never in a module. This scans their sources for the
// usual shapes of module state: a top-level `let`/`var`, or a top-level collection or emitter that can be
// written to. A constant collection declared ReadonlySet/ReadonlyMap is a table, not state.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const SCANNED = ['src/services', 'src/payment-sources', 'src/web'];

/** Files allowed module state, each with the reason. */
const ALLOWED: Record<string, string> = {
  'src/web/static-assets.ts': 'a memo of the bytes of files shipped with the package: the same for every gateway, never changed',
};

const MUTABLE = [
  /^(?:export )?(?:let|var) /,
  /^(?:export )?const \w+(?:: (?!Readonly)[^=]+)? = new (?:Map|Set|WeakMap|WeakSet|EventEmitter)\b/,
  /^(?:export )?const \w+(?:: [^=]+)? = \[\];/,
];

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('no module-level mutable state in services, payment sources and web', () => {
  it('finds none outside the allow-list', () => {
    const found: string[] = [];
    for (const file of SCANNED.flatMap(sources)) {
      const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (MUTABLE.some((shape) => shape.test(line)) && !(file in ALLOWED)) found.push(`${file}:${i + 1}: ${line.trim()}`);
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
    const allowed = ['const FIELDS: ReadonlySet<string> = new Set([', '  let inside = 0;', 'const folder = new URL(x);'];
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
    const all = new Set(SCANNED.flatMap(sources).map((f) => relative('.', f)));
    for (const file of Object.keys(ALLOWED)) expect(all.has(file), file).toBe(true);
  });
});
