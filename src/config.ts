// Every setting is an environment variable, declared once in src/settings (name, parser, default, one-line
// doc): the process's own in settings/core.ts, each area's in a file of its own, all gathered into the
// registry SETTINGS (settings/all.ts). docs/configuration.md's table is checked against this registry by
// a test. Parsing is strict: a typo in a number is a start-up error, not a silent default. This file
// reads the registry from the environment.
import type { Env, Get } from './settings/kit.js';
import { SETTINGS, type Config } from './settings/all.js';
import { StartupError } from './startup-error.js';

export type { Config } from './settings/all.js';
export { SETTINGS, SETTING_NAMES } from './settings/all.js';
export { defaultDatabaseUrl, publicBaseUrlGuessedFrom } from './settings/core.js';

export type Role = 'api' | 'worker' | 'all';

export function loadConfig(env: Env = process.env): Config {
  const config = readConfig(env);
  if (config.signup === 'open' && config.smtpUrl === null) {
    throw new StartupError(
      'invalid_setting',
      'SIGNUP=open needs SMTP_URL and MAIL_FROM: sign-up links are sent by e-mail',
    );
  }
  return config;
}

/** Each setting parsed once; one that depends on another (a bound, a default) reads it through `get`. */
function readConfig(env: Env): Config {
  const parsed = new Map<keyof Config, unknown>();
  const get: Get<Config> = (field) => {
    if (!parsed.has(field)) {
      const setting = SETTINGS[field];
      try {
        parsed.set(field, setting.read(env[setting.name], get));
      } catch (err) {
        // The parsers' messages already name their variable; the class tells the CLI it is the operator's to fix.
        throw err instanceof StartupError ? err : new StartupError('invalid_setting', (err as Error).message);
      }
    }
    return parsed.get(field) as Config[typeof field];
  };
  const fields = Object.keys(SETTINGS) as Array<keyof Config>;
  return Object.fromEntries(fields.map((field) => [field, get(field)])) as unknown as Config;
}
