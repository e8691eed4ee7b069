// issue 24, item 7: payment source kinds are a registry. Each kind is one object in its own folder,
// listed once in src/payment-sources/kinds.ts, and nothing else in src branches on a source's type.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceKind, sourceKinds, sourceTypes } from '../../src/payment-sources/kinds.js';

const root = new URL('../../', import.meta.url).pathname;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('payment source kinds', () => {
  it('lists each kind once, in its own folder, in the order the CLI help names them', () => {
    expect(sourceTypes).toEqual(['webhook', 'feed', 'snap', 'phone', 'moota', 'mutasibank', 'cekmutasi']);
    for (const kind of sourceKinds) {
      expect(sourceKind(kind.type)).toBe(kind);
      expect(readFileSync(join(root, 'src/payment-sources', kind.type, 'kind.ts'), 'utf8')).toContain(
        `type: '${kind.type}'`,
      );
      expect(kind.label.en.length).toBeGreaterThan(0);
      expect(kind.label.id.length).toBeGreaterThan(0);
    }
  });

  it('no code outside a kind folder and the registry asks which type a source is', () => {
    const kindFolders = sourceTypes.map((type) => `src/payment-sources/${type}/`);
    const branch = new RegExp(
      String.raw`(type\s*[!=]==?\s*'(${sourceTypes.join('|')})')|('(${sourceTypes.join('|')})'\s*[!=]==?\s*\w*\.?type)|(case\s+'(${sourceTypes.join('|')})')`,
    );
    const offenders = filesUnder(join(root, 'src'))
      .map((path) => relative(root, path))
      .filter(
        (path) => !kindFolders.some((folder) => path.startsWith(folder)) && path !== 'src/payment-sources/kinds.ts',
      )
      .filter((path) => branch.test(readFileSync(join(root, path), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
