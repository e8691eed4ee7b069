import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('checkout live-status settings', () => {
  it('have the documented defaults', () => {
    const c = loadConfig({});
    expect([c.checkoutStreamsPerAddress, c.checkoutStreamsPerTransaction, c.checkoutStreamsTotal]).toEqual([
      20, 5, 1000,
    ]);
    expect(c.checkoutHeartbeatSeconds).toBe(15);
    expect(c.statusWatchIntervalMs).toBe(1000);
  });

  it('are read strictly', () => {
    const c = loadConfig({
      CHECKOUT_STREAMS_PER_ADDRESS: '3',
      CHECKOUT_STREAMS_PER_TRANSACTION: '2',
      CHECKOUT_STREAMS_TOTAL: '50',
      CHECKOUT_HEARTBEAT_SECONDS: '5',
      STATUS_WATCH_INTERVAL_MS: '250',
    });
    expect([
      c.checkoutStreamsPerAddress,
      c.checkoutStreamsPerTransaction,
      c.checkoutStreamsTotal,
      c.checkoutHeartbeatSeconds,
      c.statusWatchIntervalMs,
    ]).toEqual([3, 2, 50, 5, 250]);
    expect(() => loadConfig({ CHECKOUT_STREAMS_PER_ADDRESS: '0' })).toThrow(
      /CHECKOUT_STREAMS_PER_ADDRESS must be between 1 and/,
    );
    expect(() => loadConfig({ CHECKOUT_STREAMS_TOTAL: '1e3' })).toThrow(
      /CHECKOUT_STREAMS_TOTAL must be a whole number/,
    );
    expect(() => loadConfig({ CHECKOUT_HEARTBEAT_SECONDS: '0' })).toThrow(/CHECKOUT_HEARTBEAT_SECONDS/);
    expect(() => loadConfig({ STATUS_WATCH_INTERVAL_MS: '10' })).toThrow(
      /STATUS_WATCH_INTERVAL_MS must be between 50 and/,
    );
  });
});
