// Hashing and checking console passwords: the stored format is the domain's (domain/password.ts), the
// work is done on the hashing threads (password-hasher.ts). Both may refuse with `service_unavailable`
// when too many hashes are queued.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  formatStoredHash,
  PASSWORD_HASH,
  PASSWORD_MAX_LENGTH,
  parseStoredHash,
  scryptOptions,
} from '../domain/password.js';
import { scryptOffPool } from './password-hasher.js';

/** A new stored hash of the password with today's parameters and a fresh salt. */
export async function hashPassword(password: string): Promise<string> {
  const { costLog2, blockSize, parallelization, keyLength, saltLength } = PASSWORD_HASH;
  const salt = randomBytes(saltLength);
  const key = await scryptOffPool({
    password: password.normalize('NFC'),
    salt,
    keyLength,
    options: scryptOptions(costLog2, blockSize, parallelization),
  });
  return formatStoredHash({ costLog2, r: blockSize, p: parallelization, salt, key });
}

/** Whether the password matches the stored hash; compared in constant time. A malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const h = parseStoredHash(stored);
  if (!h || password.length > PASSWORD_MAX_LENGTH) return false;
  const actual = await scryptOffPool({
    password: password.normalize('NFC'),
    salt: h.salt,
    keyLength: h.key.length,
    options: scryptOptions(h.costLog2, h.r, h.p),
  });
  return actual.length === h.key.length && timingSafeEqual(actual, h.key);
}

/**
 * A hash of no one's password, verified against when a login names an unknown address, so that the
 * answer takes as long as for a known one (made once, on first use; made again if that attempt failed).
 */
let decoy: Promise<string> | null = null;
export function decoyHash(): Promise<string> {
  if (decoy === null) {
    const made = hashPassword(randomBytes(24).toString('base64url'));
    decoy = made;
    made.catch(() => {
      if (decoy === made) decoy = null;
    });
  }
  return decoy;
}
