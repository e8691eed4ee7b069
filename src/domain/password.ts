import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// Console passwords are hashed with scrypt, a memory-hard function: each guess against a stolen hash
// costs COST_LOG2 = 15 (N = 32768), r = 8, p = 1, that is 32 MiB of memory and about 50-100 ms of one
// core here. The parameters and the salt travel inside the stored string, so raising them later only
// changes new hashes (and needsRehash tells when to upgrade one at the next login).
export const PASSWORD_HASH = { costLog2: 15, blockSize: 8, parallelization: 1, keyLength: 32, saltLength: 16 } as const;

export const PASSWORD_MIN_LENGTH = 10;
/** Long enough for any passphrase; bounded so a megabyte "password" is refused before it is hashed. */
export const PASSWORD_MAX_LENGTH = 200;

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `the password must have at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `the password must have at most ${PASSWORD_MAX_LENGTH} characters`;
  if (password.trim().length === 0) return 'the password must not be only spaces';
  if (new Set(password).size < 4) return 'the password must use at least 4 different characters';
  return null;
}

function derive(password: string, salt: Buffer, costLog2: number, r: number, p: number, keyLength: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** costLog2, r, p, maxmem: 256 * 2 ** costLog2 * r + 1024 * 1024 };
  // On libuv's thread pool: a login never blocks the event loop for the hash's 50-100 ms.
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** `scrypt$<costLog2>$<r>$<p>$<salt>$<hash>`, salt and hash in base64url. */
export async function hashPassword(password: string): Promise<string> {
  const { costLog2, blockSize, parallelization, keyLength, saltLength } = PASSWORD_HASH;
  const salt = randomBytes(saltLength);
  const key = await derive(password, salt, costLog2, blockSize, parallelization, keyLength);
  return ['scrypt', costLog2, blockSize, parallelization, salt.toString('base64url'), key.toString('base64url')].join('$');
}

const STORED = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{16,})$/;

/** Whether the password matches the stored hash; compared in constant time. A malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = STORED.exec(stored);
  if (!m || password.length > PASSWORD_MAX_LENGTH) return false;
  const [costLog2, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Bounds on what a stored string may ask for, so a corrupted row cannot make a login take minutes.
  if (costLog2 < 10 || costLog2 > 20 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const expected = Buffer.from(m[5]!, 'base64url');
  const actual = await derive(password, Buffer.from(m[4]!, 'base64url'), costLog2, r, p, expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** True when a stored hash was made with weaker parameters than today's. */
export function needsRehash(stored: string): boolean {
  const m = STORED.exec(stored);
  return !m || Number(m[1]) < PASSWORD_HASH.costLog2 || Number(m[2]) < PASSWORD_HASH.blockSize;
}

/**
 * A hash of no one's password, verified against when a login names an unknown address, so that the
 * answer takes as long as for a known one (made once, on first use).
 */
let decoy: Promise<string> | null = null;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(24).toString('base64url'));
  return decoy;
}
