import { wholeNumber, type SettingsOf } from './kit.js';

// Settings of the checkout page's live status, parsed as strictly as the rest of the configuration
// (settings/all.ts gathers them into the registry; each is documented in docs/configuration.md's table).
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

export const checkoutSettings = {
  checkoutStreamsPerAddress: wholeNumber(
    'CHECKOUT_STREAMS_PER_ADDRESS',
    'open checkout status streams per client address',
    20,
    1,
    1_000_000,
  ),
  checkoutStreamsPerTransaction: wholeNumber(
    'CHECKOUT_STREAMS_PER_TRANSACTION',
    'open checkout status streams per transaction',
    5,
    1,
    1_000_000,
  ),
  checkoutStreamsTotal: wholeNumber(
    'CHECKOUT_STREAMS_TOTAL',
    'open checkout status streams per process',
    1000,
    1,
    1_000_000,
  ),
  checkoutHeartbeatSeconds: wholeNumber(
    'CHECKOUT_HEARTBEAT_SECONDS',
    'seconds between heartbeats on each open status stream',
    15,
    1,
    3600,
  ),
  statusWatchIntervalMs: wholeNumber(
    'STATUS_WATCH_INTERVAL_MS',
    'how often a server looks for status changes by other processes and for expiries',
    1000,
    50,
    60_000,
  ),
} satisfies SettingsOf<CheckoutSettings>;
