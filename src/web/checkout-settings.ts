import { wholeNumberSetting, type Env } from '../env-settings.js';

// Settings of the checkout page's live status, parsed as strictly as the rest of the configuration
// (src/config.ts spreads them into Config; each is documented in the README's table).
export interface CheckoutSettings {
  /** Open status streams allowed per client address (IPv6: per /64). */
  checkoutStreamsPerAddress: number;
  /** Open status streams allowed per transaction. */
  checkoutStreamsPerTransaction: number;
  /** Open status streams allowed in this process altogether. */
  checkoutStreamsTotal: number;
  /** Seconds between heartbeat comments on each open stream. */
  checkoutHeartbeatSeconds: number;
  /** How often the status watch asks whether another process changed anything (SQLite) and looks for expiries. */
  statusWatchIntervalMs: number;
}

export function checkoutSettings(env: Env): CheckoutSettings {
  return {
    checkoutStreamsPerAddress: wholeNumberSetting(env, 'CHECKOUT_STREAMS_PER_ADDRESS', 20, 1, 1_000_000),
    checkoutStreamsPerTransaction: wholeNumberSetting(env, 'CHECKOUT_STREAMS_PER_TRANSACTION', 5, 1, 1_000_000),
    checkoutStreamsTotal: wholeNumberSetting(env, 'CHECKOUT_STREAMS_TOTAL', 1000, 1, 1_000_000),
    checkoutHeartbeatSeconds: wholeNumberSetting(env, 'CHECKOUT_HEARTBEAT_SECONDS', 15, 1, 3600),
    statusWatchIntervalMs: wholeNumberSetting(env, 'STATUS_WATCH_INTERVAL_MS', 1000, 50, 60_000),
  };
}
