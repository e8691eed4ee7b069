import { wholeNumberSetting, type Env } from '../env-settings.js';

// Settings of payment matching and the payment sources, parsed as strictly as the rest of the
// configuration (src/config.ts spreads them into Config; each is documented in the README's table).
export interface SourceSettings {
  /** How far before a transaction's creation a payment may be dated and still match it by amount. */
  matchClockSkewSeconds: number;
  /** How long one feed request may take before it counts as failed. */
  feedTimeoutMs: number;
  /** The longest wait between polls of a failing or rate-limited feed. */
  feedMaxBackoffSeconds: number;
  /** Who the audit log names for CLI actions; null means the OS user. */
  operator: string | null;
}


export function sourceSettings(env: Env): SourceSettings {
  return {
    matchClockSkewSeconds: wholeNumberSetting(env, 'MATCH_CLOCK_SKEW_SECONDS', 120, 0, 86_400),
    feedTimeoutMs: wholeNumberSetting(env, 'FEED_TIMEOUT_MS', 10_000, 100, 120_000),
    feedMaxBackoffSeconds: wholeNumberSetting(env, 'FEED_MAX_BACKOFF_SECONDS', 3600, 1, 86_400),
    operator: env.QRIS_OPERATOR?.trim() || null,
  };
}
