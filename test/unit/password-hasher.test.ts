// issue 23, finding 2: password hashes run on threads of their own, a bounded number at once, and the
// overflow is refused at once; hashes stored before this change still verify.
import { randomBytes, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { HASHER_THREADS, HASHES_WAITING_MAX, hasherLoad } from '../../src/hashing/password-hasher.js';
import { hashPassword, verifyPassword } from '../../src/hashing/passwords.js';

describe('the password hasher', () => {
  it('verifies a hash made the old way (crypto.scrypt, same parameters and format)', async () => {
    const salt = randomBytes(16);
    const key = scryptSync('an old password', salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const stored = ['scrypt', 15, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
    expect(await verifyPassword('an old password', stored)).toBe(true);
    expect(await verifyPassword('an old passwore', stored)).toBe(false);
  });

  it('runs at most its threads plus a bounded queue; the rest are refused at once with a retry time', async () => {
    const extra = 5;
    const started = performance.now();
    const all = Array.from({ length: HASHER_THREADS + HASHES_WAITING_MAX + extra }, (_, i) => hashPassword(`password number ${i}`).then(
      () => 'hashed' as const,
      (err: unknown) => {
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).code).toBe('service_unavailable');
        expect((err as AppError).retryAfter).toBe(1);
        return performance.now() - started;
      },
    ));
    expect(hasherLoad()).toEqual({ running: HASHER_THREADS, waiting: HASHES_WAITING_MAX });
    const outcomes = await Promise.all(all);
    const refused = outcomes.filter((o): o is number => typeof o === 'number');
    expect(refused).toHaveLength(extra);
    // Refused before any hash ended, not after waiting in line.
    for (const ms of refused) expect(ms).toBeLessThan(50);
    expect(hasherLoad()).toEqual({ running: 0, waiting: 0 });
  }, 60_000);
});
