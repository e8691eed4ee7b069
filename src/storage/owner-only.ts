// Files that hold the gateway's secrets are its user's alone (issue 35, finding 7). The SQLite database,
// and so every backup of it, holds the console's cookie secret, webhook endpoints' secrets, alert
// channels' bot tokens and Discord URLs, SNAP client secrets and private keys, and the hashes of API keys
// and passwords: under the usual umask 022 a new file would be 0644 and a new folder 0755, readable by
// every account on the machine. So each is created with an explicit mode and chmod'ed after, because the
// umask can only take bits away from the mode asked for (a umask of 0277 would leave a file the owner
// cannot write and a folder it cannot enter), and chmod sets the mode whatever the umask.
//
// SQLite makes a database's -wal, -shm and -journal files with the mode of the database file itself (its
// unix VFS copies it), so a database file that is 0600 keeps its logs 0600 too.
import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, statSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';

export const OWNER_ONLY_FILE = 0o600;
export const OWNER_ONLY_DIR = 0o700;

/** Whether a mode lets anyone but the owner read, write or enter. */
export const openToOthers = (mode: number): boolean => (mode & 0o077) !== 0;

/**
 * Creates the empty file `path`, owner-only (0600); EEXIST when something is there already. The file is
 * never readable by others, not even for a moment: it is created with that mode, which the umask can
 * only narrow, then set to exactly it.
 */
export function createOwnerOnlyFile(path: string): void {
  const fd = openSync(path, 'wx', OWNER_ONLY_FILE);
  try {
    fchmodSync(fd, OWNER_ONLY_FILE);
  } finally {
    closeSync(fd);
  }
}

/** Sets an existing file to owner-only (0600), whatever it was. */
export function makeOwnerOnly(path: string): void {
  chmodSync(path, OWNER_ONLY_FILE);
}

/**
 * Makes the folder `path` (and any missing parents) when it is missing, each folder made here owner-only
 * (0700). A folder that was there already is left as it is: it is the operator's, perhaps shared on
 * purpose (and another user's cannot be changed anyway). Returns the folder's mode, for the caller to
 * warn about one open to others.
 */
export function ensureOwnerOnlyDir(path: string): number {
  const target = resolve(path);
  const first = mkdirSync(target, { recursive: true, mode: OWNER_ONLY_DIR });
  if (first !== undefined) {
    // mkdir returns the first folder it made; it made every one from there down to the target.
    const made = [resolve(first)];
    for (const part of relative(first, target)
      .split(sep)
      .filter((p) => p !== ''))
      made.push(resolve(made.at(-1)!, part));
    for (const dir of made) chmodSync(dir, OWNER_ONLY_DIR);
  }
  return statSync(target).mode & 0o777;
}

/**
 * Sets each of `paths` that exists and is open to others to owner-only (0600): the database file and its
 * -wal and -shm, left 0644 by an earlier version of the gateway. Returns those it could not change (owned
 * by another user), for the caller to warn about.
 */
export function tightenToOwnerOnly(paths: readonly string[]): string[] {
  const left: string[] = [];
  for (const path of paths) {
    const found = statSync(path, { throwIfNoEntry: false });
    if (!found?.isFile() || !openToOthers(found.mode)) continue;
    try {
      makeOwnerOnly(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EPERM' && code !== 'EACCES') throw err;
      left.push(path);
    }
  }
  return left;
}
