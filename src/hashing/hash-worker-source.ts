/**
 * The password-hashing thread's program: scrypt, run synchronously on this thread, one job at a time.
 * Running it here rather than with crypto.scrypt keeps it off libuv's thread pool, which the SQLite log
 * flush (storage/engine/wal-sync.ts) needs for every commit: a flood of logins can then slow logins, never
 * payments.
 *
 * Like src/imaging/qr-worker-source.ts this is eval'd source, so the same thread runs from the
 * TypeScript sources under vitest and from dist/ in production.
 *
 * message in: { id, password (NFC string), salt (Uint8Array), keyLength, options: { N, r, p, maxmem } }
 * reply: { id, key: Uint8Array } | { id, error: string }
 */
export const HASH_WORKER_SOURCE = `
'use strict';
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
parentPort.on('message', (job) => {
  try {
    const key = scryptSync(job.password, job.salt, job.keyLength, job.options);
    parentPort.postMessage({ id: job.id, key });
  } catch (err) {
    parentPort.postMessage({ id: job.id, error: String(err && err.message ? err.message : err) });
  }
});
`;
