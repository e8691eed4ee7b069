// A CLI command prints links (checkout_url, qr_image_url, invitations) on the base the server uses:
// PUBLIC_BASE_URL, else HOST and PORT, from the same settings (the environment, then `.env`, then the
// defaults). Without PUBLIC_BASE_URL it cannot know the port a server was started with on its own command
// line (`PORT=4301 npm start`), so it says once, on stderr, which base it used and where that came from.
import { publicBaseUrlGuessedFrom, type Config } from '../config.js';
import type { Env } from '../settings/kit.js';

/**
 * The note for links on `url`, or null when PUBLIC_BASE_URL decides them. `processEnv` is the process's
 * own environment and `env` the settings read (`.env` under it), to tell a file's setting from the shell's.
 */
export function linkBaseNote(processEnv: Env, env: Env, url: string): string | null {
  const names = publicBaseUrlGuessedFrom(env);
  if (names === null) return null;
  const file = env.ENV_FILE || '.env';
  const from =
    names.length === 0
      ? 'the default HOST and PORT'
      : names.map((name) => (processEnv[name] ? name : `${name} in ${file}`)).join(' and ');
  return `note: links use ${url} (PUBLIC_BASE_URL is not set; from ${from}): set PUBLIC_BASE_URL in ${file} if the server answers elsewhere\n`;
}

/**
 * The settings, writing the note through `write` whenever a command reads publicBaseUrl (the caller writes
 * it once): only commands that make links, or aim at the server (dev notify), read it.
 */
export function noteLinkBase(config: Config, note: string | null, write: (note: string) => void): Config {
  if (note === null) return config;
  const url = config.publicBaseUrl;
  return Object.defineProperty(config, 'publicBaseUrl', {
    enumerable: true,
    get() {
      write(note);
      return url;
    },
  });
}
