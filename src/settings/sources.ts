import { wholeNumber, type SettingsOf } from './kit.js';

// Settings of payment matching and the payment sources, parsed as strictly as the rest of the
// configuration (settings/all.ts gathers them into the registry; each is documented in docs/configuration.md's table).
export interface SourceSettings {
  /** How far before a transaction's creation a payment may be dated and still match it by amount. */
  matchClockSkewSeconds: number;
  /** How far apart two sources' reports of one payment may be dated and still count as one payment. */
  crossSourceWindowSeconds: number;
  /** How long one feed request may take before it counts as failed. */
  feedTimeoutMs: number;
  /** The longest wait between polls of a failing or rate-limited feed. */
  feedMaxBackoffSeconds: number;
  /** How long a phone source's previous token and secret stay valid after `source rotate`. */
  phoneRotateGraceSeconds: number;
  /** Who the audit log names for CLI actions; null means the OS user. */
  operator: string | null;
}

export const sourceSettings = {
  matchClockSkewSeconds: wholeNumber(
    'MATCH_CLOCK_SKEW_SECONDS',
    'how long before its transaction a payment matched by amount may be dated',
    120,
    0,
    86_400,
  ),
  crossSourceWindowSeconds: wholeNumber(
    'CROSS_SOURCE_WINDOW_SECONDS',
    "a paid transaction's amount reported by another source dated this close to its reports is the same payment, not a double payment (0: never)",
    1800,
    0,
    86_400,
  ),
  feedTimeoutMs: wholeNumber('FEED_TIMEOUT_MS', 'timeout of each mutation-feed request', 10_000, 100, 120_000),
  feedMaxBackoffSeconds: wholeNumber(
    'FEED_MAX_BACKOFF_SECONDS',
    'longest wait between polls of a failing feed',
    3600,
    1,
    86_400,
  ),
  phoneRotateGraceSeconds: wholeNumber(
    'PHONE_ROTATE_GRACE_SECONDS',
    "how long a phone source's previous token and secret stay valid after source rotate",
    86_400,
    0,
    30 * 86_400,
  ),
  operator: {
    name: 'QRIS_OPERATOR',
    shown: 'the OS user',
    doc: 'the actor the audit log names for CLI actions',
    read: (raw) => raw?.trim() || null,
  },
} satisfies SettingsOf<SourceSettings>;
