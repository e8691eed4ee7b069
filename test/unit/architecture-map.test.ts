// ARCHITECTURE.md is the map a newcomer reads: its table of import rules names exactly the rules of
// .dependency-cruiser.cjs (the authority, checked by `npm run -s deps`), and its "What lives where" names
// every folder of src/. A rule or a folder added without the map fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const map = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
const section = (heading: string) => {
  const start = map.indexOf(`## ${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const end = map.indexOf('\n## ', start + 1);
  return map.slice(start, end < 0 ? undefined : end);
};

describe('ARCHITECTURE.md', () => {
  it("names exactly .dependency-cruiser.cjs's rules in its table", () => {
    const config = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as {
      forbidden: Array<{ name: string }>;
    };
    const rules = config.forbidden.map((rule) => rule.name).sort();
    const table = [...section('Which way imports go').matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]).sort();
    expect(table).toEqual(rules);
  });

  it('names every folder of src/ under "What lives where"', () => {
    const where = section('What lives where');
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !where.includes(`\`${folder}/\``))).toEqual([]);
  });
});
