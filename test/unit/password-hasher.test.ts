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
    const settled: Array<'hashed' | 'refused'> = [];
    const all = Array.from({ length: HASHER_THREADS + HASHES_WAITING_MAX + extra }, (_, i) =>
      hashPassword(`password number ${i}`).then(
        () => settled.push('hashed'),
        (err: unknown) => {
          expect(err).toBeInstanceOf(AppError);
          expect((err as AppError).code).toBe('service_unavailable');
          expect((err as AppError).retryAfter).toBe(1);
          settled.push('refused');
        },
      ),
    );
    expect(hasherLoad()).toEqual({ running: HASHER_THREADS, waiting: HASHES_WAITING_MAX });
    await Promise.all(all);
    // Refused at once, before any hash ended, rather than after waiting in line.
    expect(settled).toEqual([
      ...Array(extra).fill('refused'),
      ...Array(HASHER_THREADS + HASHES_WAITING_MAX).fill('hashed'),
    ]);
    expect(hasherLoad()).toEqual({ running: 0, waiting: 0 });
  }, 60_000);
});
