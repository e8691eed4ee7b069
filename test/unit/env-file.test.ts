// issue 26, item 1: the .env parser is strict (a line it cannot read is an error naming the line, never
// skipped) and the process environment wins over the file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEnvFile, withEnvFile } from '../../src/env-file.js';
import { StartupError } from '../../src/startup-error.js';

describe('parseEnvFile', () => {
  it('reads KEY=value lines, comments, export and both quotes', () => {
    const text = [
      '\uFEFF# a comment',
      '',
      'PORT=8080',
      '  HOST = 0.0.0.0  ',
      'export LOG_LEVEL=warn # why',
      'MAIL_FROM=\'Toko "Contoh" <pay@example.com>\'  # literal',
      'SMTP_URL="smtp://a%40b:p#ss@mail.example.com:465"',
      'MULTI="one\\ntwo \\"three\\" \\\\"',
      'EMPTY=',
      'URL=https://x.example.com/#frag',
    ].join('\r\n');
    expect(parseEnvFile(text, '.env')).toEqual({
      PORT: '8080',
      HOST: '0.0.0.0',
      LOG_LEVEL: 'warn',
      MAIL_FROM: 'Toko "Contoh" <pay@example.com>',
      SMTP_URL: 'smtp://a%40b:p#ss@mail.example.com:465',
      MULTI: 'one\ntwo "three" \\',
      EMPTY: '',
      URL: 'https://x.example.com/#frag',
    });
  });

  it.each([
    ['PORT 8080', 'line 2: expected KEY=value'],
    ['9PORT=1', 'line 2: expected KEY=value'],
    ['PORT="8080', 'line 2: the value\'s " is never closed'],
    ["PORT='8080' x", 'line 2: text after the closing quote'],
    ['NAME=Toko "Contoh"', 'line 2: a quote inside an unquoted value'],
    ['PASS="a\\qb"', 'line 2: unknown escape \\q'],
    ['HOST=a', 'line 2: HOST is set again (first on line 1)'],
  ])('refuses %j, naming the line and not echoing it', (line, message) => {
    const text = `HOST=x\n${line}\n`;
    let thrown: unknown;
    try {
      parseEnvFile(text, 'site.env');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(StartupError);
    expect((thrown as StartupError).code).toBe('invalid_env_file');
    expect((thrown as StartupError).message).toContain(`site.env, ${message}`);
    expect((thrown as StartupError).message).not.toContain(line);
  });
});

describe('withEnvFile', () => {
  it('fills in what the environment does not set, and only that; no file is fine', () => {
    const dir = mkdtempSync(join(tmpdir(), 'qg-env-'));
    try {
      expect(withEnvFile({ A: '1' }, dir)).toEqual({ A: '1' });
      writeFileSync(join(dir, '.env'), 'PORT=4000\nHOST=0.0.0.0\nLOG_LEVEL=debug\n');
      expect(withEnvFile({ PORT: '5000', LOG_LEVEL: '' }, dir)).toEqual({
        PORT: '5000',
        HOST: '0.0.0.0',
        LOG_LEVEL: '',
      });
      // null: no folder to look in, so only ENV_FILE counts.
      expect(withEnvFile({ PORT: '5000' }, null)).toEqual({ PORT: '5000' });
      writeFileSync(join(dir, 'other.env'), 'PORT=6000\n');
      expect(withEnvFile({ ENV_FILE: join(dir, 'other.env') }, null)).toMatchObject({ PORT: '6000' });
      expect(() => withEnvFile({ ENV_FILE: 'missing.env' }, dir)).toThrow(
        /ENV_FILE=missing\.env: cannot read it \(ENOENT\)/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
