// Console passwords are hashed with scrypt, a memory-hard function: each guess against a stolen hash
// costs COST_LOG2 = 15 (N = 32768), r = 8, p = 1, that is 32 MiB of memory and about 50-100 ms of one
// core here. The parameters and the salt travel inside the stored string, so raising them later only
// changes new hashes (and needsRehash tells when to upgrade one at the next login). The hashing itself is
// done by src/hashing, on threads of its own.
import { AppError } from './errors.js';

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

/** Throws invalid_parameter (param `password`) with passwordProblem's reason when a new password is refused. */
export function checkPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw new AppError('invalid_parameter', problem, { param: 'password' });
}

/** What a stored hash says: its parameters, salt and key; null when it is malformed or out of bounds. */
export interface StoredHash {
  costLog2: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

const STORED = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{16,})$/;

export function parseStoredHash(stored: string): StoredHash | null {
  const m = STORED.exec(stored);
  if (!m) return null;
  const [costLog2, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Bounds on what a stored string may ask for, so a corrupted row cannot make a login take minutes.
  if (costLog2 < 10 || costLog2 > 20 || r < 1 || r > 32 || p < 1 || p > 16) return null;
  return { costLog2, r, p, salt: Buffer.from(m[4]!, 'base64url'), key: Buffer.from(m[5]!, 'base64url') };
}

/** `scrypt$<costLog2>$<r>$<p>$<salt>$<hash>`, salt and hash in base64url. */
export function formatStoredHash(h: StoredHash): string {
  return ['scrypt', h.costLog2, h.r, h.p, h.salt.toString('base64url'), h.key.toString('base64url')].join('$');
}

/** scrypt's options for these parameters, with the memory it needs allowed. */
export function scryptOptions(
  costLog2: number,
  r: number,
  p: number,
): { N: number; r: number; p: number; maxmem: number } {
  return { N: 2 ** costLog2, r, p, maxmem: 256 * 2 ** costLog2 * r + 1024 * 1024 };
}

/** True when a stored hash was made with weaker parameters than today's. */
export function needsRehash(stored: string): boolean {
  const h = parseStoredHash(stored);
  return !h || h.costLog2 < PASSWORD_HASH.costLog2 || h.r < PASSWORD_HASH.blockSize;
}
