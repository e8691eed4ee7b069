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

type Env = Record<string, string | undefined>;

export function sourceSettings(env: Env): SourceSettings {
  return {
    matchClockSkewSeconds: whole(env, 'MATCH_CLOCK_SKEW_SECONDS', 120, 0, 86_400),
    feedTimeoutMs: whole(env, 'FEED_TIMEOUT_MS', 10_000, 100, 120_000),
    feedMaxBackoffSeconds: whole(env, 'FEED_MAX_BACKOFF_SECONDS', 3600, 1, 86_400),
    operator: env.QRIS_OPERATOR?.trim() || null,
  };
}

function whole(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new Error(`${name} must be a whole number, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  if (value < min || value > max) throw new Error(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}
