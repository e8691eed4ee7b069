import { booleanSetting, wholeNumberSetting, type Env } from '../../env-settings.js';

// Settings of the console (/dashboard), parsed as strictly as the rest of the configuration.
export interface ConsoleSettings {
  /** A session ends after this many minutes without a page view. */
  sessionIdleMinutes: number;
  /** A session ends this many hours after login, however busy. */
  sessionMaxHours: number;
  /** Whether /dashboard is served at all (a worker-only or API-only deployment can turn it off). */
  consoleEnabled: boolean;
  /** Who may make an account: nobody (closed, the default), people an operator invites, or anyone. */
  signup: 'closed' | 'invite' | 'open';
  /** Whether a self-service merchant's live keys wait for an operator's approval. */
  liveKeys: 'approval' | 'auto';
  /** Sign-ups allowed per client address (IPv6: per /64) before each further one waits longer. */
  signupsPerAddress: number;
  /** The daily create quota a merchant added by a self-service user starts with. */
  signupPlanDailyCreates: number;
  /** How many merchants a self-service user may add (and belong to); operators' merchants are not counted against anyone. */
  merchantsPerUser: number;
}

function oneOf<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(choices as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${choices.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw as T;
}

export function consoleSettings(env: Env): ConsoleSettings {
  return {
    sessionIdleMinutes: wholeNumberSetting(env, 'SESSION_IDLE_MINUTES', 30, 1, 7 * 24 * 60),
    sessionMaxHours: wholeNumberSetting(env, 'SESSION_MAX_HOURS', 12, 1, 30 * 24),
    consoleEnabled: booleanSetting(env, 'CONSOLE', true),
    ...signupSettings(env),
  };
}

function signupSettings(env: Env): Pick<ConsoleSettings, 'signup' | 'liveKeys' | 'signupsPerAddress' | 'signupPlanDailyCreates' | 'merchantsPerUser'> {
  const signup = oneOf(env, 'SIGNUP', ['closed', 'invite', 'open'] as const, 'closed');
  // A public service must not be usable for fraud the moment someone signs up: approval by default there.
  const liveKeys = oneOf(env, 'LIVE_KEYS', ['approval', 'auto'] as const, signup === 'open' ? 'approval' : 'auto');
  return {
    signup,
    liveKeys,
    signupsPerAddress: wholeNumberSetting(env, 'SIGNUPS_PER_ADDRESS', 5, 1, 1_000_000),
    signupPlanDailyCreates: wholeNumberSetting(env, 'SIGNUP_PLAN_DAILY_CREATES', 100, 0, 10_000_000),
    // Each merchant brings its own daily quota and its own mail allowance: without a cap, one sign-up
    // could multiply both by adding merchants.
    merchantsPerUser: wholeNumberSetting(env, 'MERCHANTS_PER_USER', 3, 0, 10_000),
  };
}
