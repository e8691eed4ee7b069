import { describe, expect, it } from 'vitest';
import {
  MAX_ATTEMPTS,
  MAX_RETRY_DELAY_MS,
  RETRY_DELAYS_MS,
  nextAttemptDelayMs,
  parseRetryAfter,
  retryDelayMs,
} from '../../src/domain/webhook-retry.js';

const HOUR = 3_600_000;

describe('retry schedule', () => {
  it('starts at 30 s, doubles, caps at 6 h, and ends at 72 h', () => {
    expect(RETRY_DELAYS_MS.slice(0, 4)).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(Math.max(...RETRY_DELAYS_MS)).toBe(MAX_RETRY_DELAY_MS);
    expect(RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)).toBe(72 * HOUR);
    expect(MAX_ATTEMPTS).toBe(RETRY_DELAYS_MS.length + 1);
    expect(MAX_ATTEMPTS).toBeGreaterThan(20);
  });

  it('adds ±20% jitter and stops when the schedule is spent', () => {
    expect(retryDelayMs(1, 0)).toBe(24_000);
    expect(retryDelayMs(1, 0.5)).toBe(30_000);
    expect(retryDelayMs(1, 0.999999)).toBeLessThanOrEqual(36_000);
    expect(retryDelayMs(MAX_ATTEMPTS - 1, 0.5)).toBe(RETRY_DELAYS_MS.at(-1));
    expect(retryDelayMs(MAX_ATTEMPTS, 0.5)).toBeNull();
  });

  it('waits for Retry-After when the receiver asks for longer than the backoff', () => {
    expect(nextAttemptDelayMs(1, 120_000, 0.5)).toBe(120_000);
    expect(nextAttemptDelayMs(1, 5_000, 0.5)).toBe(30_000);
    expect(nextAttemptDelayMs(1, null, 0.5)).toBe(30_000);
    expect(nextAttemptDelayMs(MAX_ATTEMPTS, 120_000, 0.5)).toBeNull();
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:05:00 GMT', now)).toBe(300_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
  });
  it('bounds what a receiver may ask for', () => {
    expect(parseRetryAfter('999999999', now)).toBe(MAX_RETRY_DELAY_MS);
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', now)).toBe(MAX_RETRY_DELAY_MS);
  });
  it.each([undefined, null, '', '-5', '1.5', '1e3', 'soon', '12345678901'])('ignores %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeNull();
  });
});
