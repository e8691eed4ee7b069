import { flag, oneOf, wholeNumber, type SettingsOf } from './kit.js';

// Settings of the console (/dashboard), parsed as strictly as the rest of the configuration.
export interface ConsoleSettings {
  /** A session ends after this many minutes without a page view. */
  sessionIdleMinutes: number;
  /** A session ends this many hours after login, however busy. */
  sessionMaxHours: number;
  /** How often an open console stream (the soundbox) checks that its session still stands. */
  sessionCheckIntervalMs: number;
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

export const consoleSettings = {
  sessionIdleMinutes: wholeNumber(
    'SESSION_IDLE_MINUTES',
    'a console session ends after this long without a page view',
    30,
    1,
    7 * 24 * 60,
  ),
  sessionMaxHours: wholeNumber('SESSION_MAX_HOURS', 'a console session ends this long after login', 12, 1, 30 * 24),
  sessionCheckIntervalMs: wholeNumber(
    'SESSION_CHECK_INTERVAL_MS',
    'how often an open soundbox stream checks that its console session still stands (one read for all of them)',
    5000,
    100,
    60_000,
  ),
  consoleEnabled: flag('CONSOLE', 'serve the console at /dashboard', true),
  signup: oneOf(
    'SIGNUP',
    'who may make a console account: closed, invite or open',
    ['closed', 'invite', 'open'] as const,
    'closed',
  ),
  // A public service must not be usable for fraud the moment someone signs up: approval by default there.
  liveKeys: oneOf<'approval' | 'auto', ConsoleSettings>(
    'LIVE_KEYS',
    "whether a self-service merchant's live keys wait for an operator's approval",
    ['approval', 'auto'],
    (get) => (get('signup') === 'open' ? 'approval' : 'auto'),
    'approval when SIGNUP=open, else auto',
  ),
  signupsPerAddress: wholeNumber(
    'SIGNUPS_PER_ADDRESS',
    'sign-ups per client address before each further one waits longer',
    5,
    1,
    1_000_000,
  ),
  signupPlanDailyCreates: wholeNumber(
    'SIGNUP_PLAN_DAILY_CREATES',
    'the daily create quota of a merchant a self-service user adds',
    100,
    0,
    10_000_000,
  ),
  // Each merchant brings its own daily quota and its own mail allowance: without a cap, one sign-up
  // could multiply both by adding merchants.
  merchantsPerUser: wholeNumber(
    'MERCHANTS_PER_USER',
    'how many merchants a self-service user may add and belong to',
    3,
    0,
    10_000,
  ),
} satisfies SettingsOf<ConsoleSettings>;
