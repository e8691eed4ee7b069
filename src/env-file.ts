// The one source of settings the server and the CLI share: a `.env` file of KEY=value lines, read by
// every command (serve included) before the settings are parsed. It is never required, and the process
// environment wins over it, so a variable set on the command line still decides.
//
// Parsed here rather than by Node's util.parseEnv, which skips a line it cannot read without a word:
// a typo in this file must be a start-up error naming its line, like a typo in a setting.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { coreSettings } from './settings/core.js';
import type { Env } from './settings/kit.js';
import { StartupError } from './startup-error.js';

const ASSIGNMENT = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;

/** KEY=value lines; blank lines and `#` comments are skipped; values may be quoted ('literal' or "with \n escapes"). */
export function parseEnvFile(text: string, file: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lineOf = new Map<string, number>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const number = index + 1;
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    // The line itself is not quoted back: it may hold a password.
    const fail = (why: string): never => {
      throw new StartupError('invalid_env_file', `${file}, line ${number}: ${why}`);
    };
    const match = ASSIGNMENT.exec(line);
    if (!match) fail('expected KEY=value (a name of letters, digits and _, then =)');
    const [, name, rest] = match!;
    if (lineOf.has(name!)) fail(`${name} is set again (first on line ${lineOf.get(name!)})`);
    lineOf.set(name!, number);
    values[name!] = parseValue(rest!, fail);
  }
  return values;
}

function parseValue(rest: string, fail: (why: string) => never): string {
  const quote = rest[0];
  if (quote === '"' || quote === "'") {
    let value = '';
    let i = 1;
    for (; i < rest.length && rest[i] !== quote; i++) {
      if (quote === '"' && rest[i] === '\\') {
        const next = rest[++i];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else fail(`unknown escape \\${next ?? ''} in a "quoted" value (use \\n, \\\\ or \\")`);
      } else {
        value += rest[i];
      }
    }
    if (i >= rest.length) fail(`the value's ${quote} is never closed (a value is one line)`);
    const after = rest.slice(i + 1).trim();
    if (after !== '' && !after.startsWith('#')) fail('text after the closing quote');
    return value;
  }
  // Unquoted: a # after a space starts a comment; a value holding " # " must be quoted.
  const value = rest.replace(/\s+#.*$/, '').trim();
  if (/["']/.test(value)) fail('a quote inside an unquoted value (quote the whole value)');
  return value;
}

/**
 * The environment the settings are read from: ENV_FILE's file (required when set), else `.env` in `dir`
 * when there is one (dir null: none), under the process environment, which wins.
 */
export function withEnvFile(env: Env, dir: string | null): Env {
  const named = env[coreSettings.envFile.name];
  const path = named ? resolve(dir ?? '.', named) : dir === null ? null : resolve(dir, '.env');
  if (path === null) return env;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (!named && (err as NodeJS.ErrnoException).code === 'ENOENT') return env;
    const which = named ? `${coreSettings.envFile.name}=${named}` : path;
    throw new StartupError(
      'invalid_env_file',
      `${which}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  const fromFile = parseEnvFile(text, named ?? '.env');
  const merged: Env = { ...fromFile };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) merged[name] = value;
  return merged;
}
