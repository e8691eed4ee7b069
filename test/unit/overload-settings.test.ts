// issue 25, part 4: the OVERLOAD_* limits parse as strictly as every other setting; 0 turns one off.
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('overload settings', () => {
  it('defaults: a stalled loop or a nearly full heap only; RSS and utilisation off', () => {
    const config = loadConfig({});
    expect(config.overloadMaxEventLoopDelayMs).toBe(1000);
    expect(config.overloadMaxHeapUsedBytes).toBe(Math.floor(getHeapStatistics().heap_size_limit * 0.9));
    expect(config.overloadMaxRssBytes).toBe(0);
    expect(config.overloadMaxEventLoopUtilization).toBe(0);
    expect(config.overloadSampleIntervalMs).toBe(1000);
    expect(config.overloadRetryAfterSeconds).toBe(2);
  });

  it('takes 0 as off and plain numbers as limits', () => {
    const config = loadConfig({
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      OVERLOAD_MAX_HEAP_USED_BYTES: '0',
      OVERLOAD_MAX_RSS_BYTES: '1073741824',
      OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '980',
    });
    expect(config.overloadMaxEventLoopDelayMs).toBe(0);
    expect(config.overloadMaxHeapUsedBytes).toBe(0);
    expect(config.overloadMaxRssBytes).toBe(1_073_741_824);
    expect(config.overloadMaxEventLoopUtilization).toBe(980);
  });

  it('refuses bad values at start with a message naming the variable', () => {
    expect(() => loadConfig({ OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '200ms' })).toThrow(
      'OVERLOAD_MAX_EVENT_LOOP_DELAY_MS must be a whole number, got "200ms"',
    );
    expect(() => loadConfig({ OVERLOAD_MAX_HEAP_USED_BYTES: '-1' })).toThrow(
      'OVERLOAD_MAX_HEAP_USED_BYTES must be a whole number',
    );
    expect(() => loadConfig({ OVERLOAD_MAX_RSS_BYTES: '1.5e9' })).toThrow(
      'OVERLOAD_MAX_RSS_BYTES must be a whole number',
    );
    expect(() => loadConfig({ OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '1001' })).toThrow(
      'OVERLOAD_MAX_EVENT_LOOP_UTILIZATION must be between 0 and 1000, got 1001',
    );
    expect(() => loadConfig({ OVERLOAD_SAMPLE_INTERVAL_MS: '5' })).toThrow(
      'OVERLOAD_SAMPLE_INTERVAL_MS must be between 10 and 60000, got 5',
    );
    expect(() => loadConfig({ OVERLOAD_RETRY_AFTER_SECONDS: '0' })).toThrow(
      'OVERLOAD_RETRY_AFTER_SECONDS must be between 1 and 3600, got 0',
    );
  });
});
