import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_THROTTLE,
  ADDRESS_THROTTLE,
  countedFailures,
  hashSessionId,
  needsTouch,
  newSessionId,
  SESSION_ID,
  sessionState,
  THROTTLE_FORGET_MS,
  throttleDelayMs,
} from '../../src/domain/console-session.js';
import { AppError } from '../../src/domain/errors.js';
import { checkPassword, needsRehash, passwordProblem } from '../../src/domain/password.js';
import { hashPassword, verifyPassword } from '../../src/hashing/passwords.js';
import { pickLang } from '../../src/presentation/messages.js';

describe('passwords', () => {
  it('hash with scrypt (N = 2^15, r = 8, p = 1), a fresh salt each time, and verify', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
    expect(needsRehash(a)).toBe(false);
  });

  it('never match a malformed or absurd stored hash', async () => {
    for (const stored of [
      '',
      'plain',
      'scrypt$15$8$1$abc$def',
      'scrypt$30$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA',
      'bcrypt$...',
    ]) {
      expect(await verifyPassword('anything at all', stored)).toBe(false);
    }
    expect(needsRehash('scrypt$14$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA')).toBe(true);
  });

  it('a new password needs 10 to 200 characters, not only spaces, with some variety', () => {
    expect(passwordProblem('short')).toMatch(/at least 10/);
    expect(passwordProblem(' '.repeat(12))).toMatch(/spaces/);
    expect(passwordProblem('aaaaaaaaaaaa')).toMatch(/different/);
    expect(passwordProblem('x'.repeat(201))).toMatch(/at most 200/);
    expect(passwordProblem('correct horse battery')).toBeNull();
    expect(passwordProblem('kata sandi rahasia')).toBeNull();
  });

  // issue 24, item 8: checkPassword moved from services/users into the domain.
  it('checkPassword throws invalid_parameter on password with the reason, and passes a good one', () => {
    expect(() => checkPassword('correct horse battery')).not.toThrow();
    let err: unknown;
    try {
      checkPassword('short');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('invalid_parameter');
    expect((err as AppError).param).toBe('password');
    expect((err as AppError).message).toMatch(/at least 10/);
  });
});

describe('sessions', () => {
  const times = { created_at: 0, last_seen_at: 0, expires_at: 12 * 3600_000, ended_at: null };
  const idle = 30 * 60_000;

  it('ids are 256 random bits in base64url; only a hash is stored', () => {
    const id = newSessionId();
    expect(id).toMatch(SESSION_ID);
    expect(newSessionId()).not.toBe(id);
    expect(hashSessionId(id)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSessionId(id)).not.toContain(id);
  });

  it('are active until idle or past the absolute end, whichever comes first, and ended for good', () => {
    expect(sessionState(times, idle - 1, idle)).toBe('active');
    expect(sessionState(times, idle, idle)).toBe('idle');
    expect(sessionState({ ...times, last_seen_at: times.expires_at - 1 }, times.expires_at, idle)).toBe('expired');
    expect(sessionState({ ...times, ended_at: 5 }, 6, idle)).toBe('ended');
    fc.assert(
      fc.property(fc.nat(10 ** 9), fc.nat(10 ** 9), (seen, now) => {
        const s = { ...times, last_seen_at: seen };
        const state = sessionState(s, now, idle);
        return state === 'active' ? now < s.expires_at && now - seen < idle : now >= s.expires_at || now - seen >= idle;
      }),
    );
  });

  it('move last_seen at most once a minute', () => {
    expect(needsTouch(times, 59_999)).toBe(false);
    expect(needsTouch(times, 60_000)).toBe(true);
  });
});

describe('login throttling', () => {
  it('lets an account try 5 times, then waits 1 s, 2 s, 4 s ... up to 15 minutes', () => {
    expect([1, 2, 3, 4, 5].map((n) => throttleDelayMs(ACCOUNT_THROTTLE, n))).toEqual([0, 0, 0, 0, 0]);
    expect([6, 7, 8, 9].map((n) => throttleDelayMs(ACCOUNT_THROTTLE, n))).toEqual([1000, 2000, 4000, 8000]);
    expect(throttleDelayMs(ACCOUNT_THROTTLE, 1000)).toBe(15 * 60_000);
    expect(throttleDelayMs(ADDRESS_THROTTLE, 20)).toBe(0);
    expect(throttleDelayMs(ADDRESS_THROTTLE, 21)).toBe(1000);
  });

  it('never shrinks the wait as failures grow, and forgets after a quiet day', () => {
    fc.assert(
      fc.property(
        fc.nat(10_000),
        (n) => throttleDelayMs(ACCOUNT_THROTTLE, n + 1) >= throttleDelayMs(ACCOUNT_THROTTLE, n),
      ),
    );
    expect(countedFailures(9, 0, THROTTLE_FORGET_MS - 1)).toBe(9);
    expect(countedFailures(9, 0, THROTTLE_FORGET_MS)).toBe(0);
  });
});

describe('console language', () => {
  it('follows the cookie, then Accept-Language by weight, else English', () => {
    expect(pickLang('id', 'en')).toBe('id');
    expect(pickLang(undefined, 'id-ID,id;q=0.9,en-US;q=0.8')).toBe('id');
    expect(pickLang(undefined, 'en-US,en;q=0.9,id;q=0.8')).toBe('en');
    expect(pickLang(undefined, 'fr;q=1, id;q=0.5')).toBe('id');
    expect(pickLang(undefined, 'in')).toBe('id');
    expect(pickLang(undefined, 'de')).toBe('en');
    expect(pickLang(undefined, undefined)).toBe('en');
    expect(pickLang('xx', 'id;q=0')).toBe('en');
  });
});
