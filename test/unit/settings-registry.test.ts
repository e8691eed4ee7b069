// issue 24, item 5: every setting is declared once in the registry, and the configuration table
// (docs/configuration.md) is written from it by `npm run -s docs:config` (scripts/docs-config.ts) and
// checked against it (names and defaults), so neither can drift from the other.
import { devNull } from 'node:os';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_DOC_PATH, TABLE_END, TABLE_START, renderConfigurationDoc } from '../../scripts/docs-config.js';
import { SETTING_NAMES, SETTINGS, loadConfig, type Config } from '../../src/config.js';
import { childEnv, root } from '../helpers/processes.js';

const page = readFileSync(CONFIGURATION_DOC_PATH, 'utf8');

/** docs/configuration.md's table as variable -> default text (backticks dropped). */
function documentedTable(): Map<string, string> {
  const table = page.slice(page.indexOf(TABLE_START) + TABLE_START.length, page.indexOf(TABLE_END)).trim();
  const rows = new Map<string, string>();
  for (const line of table.split('\n').slice(2)) {
    const [name, shown] = line.split(' | ').map((cell) => cell.replace(/^\| /, ''));
    expect(rows.has(name!.replace(/`/g, '')), `row of ${name}`).toBe(false);
    rows.set(name!.replace(/`/g, ''), shown!.replace(/`/g, ''));
  }
  return rows;
}

describe('the settings registry', () => {
  it('names each variable once', () => {
    expect(new Set(SETTING_NAMES).size).toBe(SETTING_NAMES.length);
    expect(SETTING_NAMES).toContain('PORT');
    expect(SETTING_NAMES).toContain('CHECKOUT_STREAMS_TOTAL');
  });

  it('has a row in docs/configuration.md with the same default for every setting, and no row for anything else', () => {
    const table = documentedTable();
    const documented = Object.fromEntries(SETTING_NAMES.map((name) => [name, table.get(name)]));
    const registered = Object.fromEntries(Object.values(SETTINGS).map((s) => [s.name, s.shown]));
    expect(documented).toEqual(registered);
    expect([...table.keys()].sort()).toEqual([...SETTING_NAMES].sort());
  });

  it('is the table `npm run -s docs:config` writes into docs/configuration.md', () => {
    expect(page, 'run `npm run -s docs:config`').toBe(renderConfigurationDoc(page));
  });

  it('shows the default loadConfig really uses, where it is a plain number or flag', () => {
    const config = loadConfig({});
    for (const [field, setting] of Object.entries(SETTINGS)) {
      if (!/^([0-9]+|true|false)$/.test(setting.shown) || setting.name === 'TRUST_PROXY') continue;
      expect(String(config[field as keyof Config]), setting.name).toBe(setting.shown);
    }
  });
});

describe('the tools that start gateway processes clear every registered setting', () => {
  const every = Object.fromEntries(SETTING_NAMES.map((name) => [name, 'from-the-parent']));

  it('the test helpers (childEnv)', () => {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, every);
      const env = childEnv({ PORT: '1234' });
      // Nothing of the parent's reaches the child; what is set is the caller's and the helper's own
      // defaults (no settings file: ENV_FILE is the empty device; the event-loop delay shedder off in
      // test gateways, processes.ts).
      expect(SETTING_NAMES.filter((name) => env[name] === 'from-the-parent')).toEqual([]);
      expect(
        Object.fromEntries(SETTING_NAMES.filter((name) => env[name] !== undefined).map((name) => [name, env[name]])),
      ).toEqual({
        ENV_FILE: devNull,
        PORT: '1234',
        OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      });
    } finally {
      for (const name of SETTING_NAMES) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  });

  it('the bench (scripts/gateway-settings.mjs, plain JS run by node)', () => {
    const script =
      "const { cleanEnv } = await import('./scripts/gateway-settings.mjs'); console.log(JSON.stringify(cleanEnv({ LOG_LEVEL: 'warn' })));";
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, ...every },
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    const env = JSON.parse(run.stdout) as Record<string, string>;
    expect(SETTING_NAMES.filter((name) => env[name] !== undefined)).toEqual(['ENV_FILE', 'LOG_LEVEL']);
    expect(env.ENV_FILE).toBe(devNull);
  });
});
