import { hash, randomBytes } from 'node:crypto';
import { clientAddressKey } from './client-address.js';

// The console's session and login-throttle rules, as pure functions of times and counts.

/** A fresh session id for the cookie: 256 random bits. Only its hash is stored. */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSessionId(id: string): string {
  return hash('sha256', id, 'hex');
}

/** A cookie value that could be one of our session ids (anything else is not looked up at all). */
export const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export interface SessionTimes {
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  ended_at: number | null;
}

export type SessionState = 'active' | 'ended' | 'idle' | 'expired';

/** Whether a stored session still logs its user in at `now`, given the idle limit. */
export function sessionState(s: SessionTimes, now: number, idleMs: number): SessionState {
  if (s.ended_at !== null) return 'ended';
  if (now >= s.expires_at) return 'expired';
  if (now - s.last_seen_at >= idleMs) return 'idle';
  return 'active';
}

/**
 * A page view moves last_seen_at forward only when it is this old: the idle limit is in minutes, so a
 * write per click would buy nothing.
 */
export const SESSION_TOUCH_MS = 60_000;

export function needsTouch(s: SessionTimes, now: number): boolean {
  return now - s.last_seen_at >= SESSION_TOUCH_MS;
}

/** Failed logins counted per key: the typed account and the client's address. */
export interface ThrottleRule {
  /** Failures allowed with no wait at all. */
  free: number;
  /** The wait after the first failure beyond `free`; each further failure doubles it. */
  firstDelayMs: number;
  maxDelayMs: number;
}

/**
 * An account gets 5 free tries, then waits 1 s, 2 s, 4 s ... up to 15 minutes. An address gets more free
 * tries, since one office or mobile carrier may put many people behind it, and the same growth.
 */
export const ACCOUNT_THROTTLE: ThrottleRule = { free: 5, firstDelayMs: 1000, maxDelayMs: 15 * 60_000 };
export const ADDRESS_THROTTLE: ThrottleRule = { free: 20, firstDelayMs: 1000, maxDelayMs: 15 * 60_000 };

/** A day without failures forgives the earlier ones. */
export const THROTTLE_FORGET_MS = 24 * 3600_000;

/** How long logins under this key wait after its `failures`-th failure. */
export function throttleDelayMs(rule: ThrottleRule, failures: number): number {
  const beyond = failures - rule.free;
  if (beyond <= 0) return 0;
  // 2 ** 30 is far past any maximum; capping the exponent keeps the number finite.
  return Math.min(rule.maxDelayMs, rule.firstDelayMs * 2 ** Math.min(beyond - 1, 30));
}

/** The failures that still count at `now`: none once a day has passed since the last one. */
export function countedFailures(failures: number, lastFailureAt: number, now: number): number {
  return now - lastFailureAt >= THROTTLE_FORGET_MS ? 0 : failures;
}

/** One login-throttle counter: its key in login_throttles and the rule its waits follow. */
export interface ThrottleKey {
  key: string;
  rule: ThrottleRule;
}

/** The login counters of one attempt: the typed account (hashed, so unknown addresses count too) and the client's address. */
export function loginKeys(email: string, clientAddress: string): ThrottleKey[] {
  return [
    { key: `account:${hash('sha256', email, 'hex')}`, rule: ACCOUNT_THROTTLE },
    { key: `address:${clientAddressKey(clientAddress)}`, rule: ADDRESS_THROTTLE },
  ];
}
