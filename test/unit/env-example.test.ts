// issue 38, part 2: .env.example (the compose stack's settings file) lists every setting of the registry,
// and is exactly what scripts/env-example.ts renders, so a setting added to the registry without
// `npm run -s env:example` fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENV_EXAMPLE_PATH, renderEnvExample } from '../../scripts/env-example.js';
import { SETTING_NAMES } from '../../src/config.js';

const committed = readFileSync(ENV_EXAMPLE_PATH, 'utf8');

/** The variable names the file sets or shows commented out (`NAME=` or `#NAME=` at a line's start). */
function listed(text: string): string[] {
  return [...text.matchAll(/^#?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
}

describe('.env.example', () => {
  it('lists every setting of the registry, once', () => {
    const names = listed(committed);
    const missing = SETTING_NAMES.filter((name) => !names.includes(name));
    expect(missing, 'settings missing from .env.example: run `npm run -s env:example`').toEqual([]);
    expect(SETTING_NAMES.filter((name) => names.filter((n) => n === name).length !== 1)).toEqual([]);
  });

  it('is what `npm run -s env:example` writes', () => {
    expect(committed, 'run `npm run -s env:example`').toBe(renderEnvExample());
  });

  it('sets only DOMAIN and ACME_EMAIL, the values every install must choose; everything else keeps its default', () => {
    expect([...committed.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1])).toEqual(['DOMAIN', 'ACME_EMAIL']);
  });

  it('has the stack variables compose.yaml reads', () => {
    const compose = readFileSync(new URL('../../compose.yaml', import.meta.url), 'utf8');
    const used = new Set([...compose.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!));
    const names = listed(committed);
    expect([...used].filter((name) => !names.includes(name))).toEqual([]);
  });
});
