// The gateway's setting names for the plain-JS scripts (the bench), read from the settings registry in
// src/config.ts itself through tsx, so the list cannot drift and no build of dist/ is needed first
// (tsx is already a dev dependency: `npm run fuzz` runs through it).
import { devNull } from 'node:os';
import { tsImport } from 'tsx/esm/api';

/** @type {{ SETTING_NAMES: readonly string[] }} */
const registry = await tsImport('../src/config.ts', import.meta.url);

/** Every variable the gateway reads, plus the CLI's ADMIN_PASSWORD. */
export const GATEWAY_SETTINGS = new Set([...registry.SETTING_NAMES, 'ADMIN_PASSWORD']);

/**
 * The parent's environment minus gateway settings it may carry (so a developer's .env does not leak in)
 * and the test suite's QG_*, plus the given ones. ENV_FILE points at an empty file: the gateway would
 * otherwise read a `.env` in the folder it starts in.
 * @param {Record<string, string>} extra
 */
export function cleanEnv(extra) {
  /** @type {Record<string, string | undefined>} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!GATEWAY_SETTINGS.has(k) && !k.startsWith('QG_')) env[k] = v;
  }
  return { ...env, ENV_FILE: devNull, ...extra };
}
