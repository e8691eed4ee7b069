import type { Actor } from '../domain/actor.js';
import type { Config } from '../config.js';
import type { Env } from '../settings/kit.js';
import type { Deps } from '../services/deps.js';
import type { Io } from './output.js';

/** What every group of CLI commands is given. */
export interface CliContext {
  io: Io;
  /** True when the invocation has --json: print exactly one JSON object on stdout. */
  json: boolean;
  /** The settings; reading publicBaseUrl writes, once, which base the links use when PUBLIC_BASE_URL is unset. */
  config: () => Config;
  /** The settings as they are, for serve: a server's links are its own, nothing to note. */
  settings: () => Config;
  /** The environment the command runs with (settings, ADMIN_PASSWORD). */
  env: Env;
  /** Who the audit log names for this invocation (QRIS_OPERATOR, else the OS user). */
  actor: () => Actor;
  /** Opens (and migrates) the configured database for the duration of fn. */
  withDeps: <T>(fn: (deps: Deps) => Promise<T>) => Promise<T>;
}
