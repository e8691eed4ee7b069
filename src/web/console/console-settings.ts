import { booleanSetting, wholeNumberSetting, type Env } from '../../env-settings.js';

// Settings of the console (/dashboard), parsed as strictly as the rest of the configuration.
export interface ConsoleSettings {
  /** A session ends after this many minutes without a page view. */
  sessionIdleMinutes: number;
  /** A session ends this many hours after login, however busy. */
  sessionMaxHours: number;
  /** Whether /dashboard is served at all (a worker-only or API-only deployment can turn it off). */
  consoleEnabled: boolean;
}

export function consoleSettings(env: Env): ConsoleSettings {
  return {
    sessionIdleMinutes: wholeNumberSetting(env, 'SESSION_IDLE_MINUTES', 30, 1, 7 * 24 * 60),
    sessionMaxHours: wholeNumberSetting(env, 'SESSION_MAX_HOURS', 12, 1, 30 * 24),
    consoleEnabled: booleanSetting(env, 'CONSOLE', true),
  };
}
