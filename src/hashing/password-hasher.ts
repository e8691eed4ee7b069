// Runs scrypt for console passwords on a few threads of its own, with a bounded queue in front.
//
// Why: crypto.scrypt runs on libuv's 4-thread pool, which the SQLite log flush after each group commit
// also uses (storage/engine/wal-sync.ts). A few hundred anonymous login or reset posts then held every create
// behind their hashes for tens of seconds. Here a hash never touches that pool, at most
// HASHER_THREADS run at once (each one core for 50-100 ms) and at most HASHES_WAITING_MAX wait; past
// that a hash is refused at once with `service_unavailable` (503, Retry-After), never queued for long.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { AppError } from '../domain/errors.js';
import { HASH_WORKER_SOURCE } from './hash-worker-source.js';

/** One thread on a small machine, two from four cores on: the event loop keeps a core of its own. */
export const HASHER_THREADS = Math.max(1, Math.min(2, availableParallelism() - 2));
/** Hashes that may wait for a thread; at about 70 ms each, the last one waits around a second. */
export const HASHES_WAITING_MAX = 16;

export interface ScryptJob {
  password: string;
  salt: Buffer;
  keyLength: number;
  options: { N: number; r: number; p: number; maxmem: number };
}

interface Pending extends ScryptJob {
  id: number;
  resolve(key: Buffer): void;
  reject(err: Error): void;
}

interface HashThread {
  worker: Worker;
  job: Pending | null;
}

const threads: HashThread[] = [];
const waiting: Pending[] = [];
let nextId = 1;

export const busyError = () =>
  new AppError('service_unavailable', 'too many password checks at once; try again in a moment', { retryAfter: 1 });

/** The scrypt key of one job, from a hashing thread; refused at once when too many are queued. */
export function scryptOffPool(job: ScryptJob): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const pending: Pending = { ...job, id: nextId++, resolve, reject };
    const idle = freeThread();
    if (idle) return run(idle, pending);
    if (waiting.length >= HASHES_WAITING_MAX) return reject(busyError());
    waiting.push(pending);
  });
}

/** Hashes running and waiting now (for tests and metrics). */
export function hasherLoad(): { running: number; waiting: number } {
  return { running: threads.filter((t) => t.job !== null).length, waiting: waiting.length };
}

function freeThread(): HashThread | null {
  const idle = threads.find((t) => t.job === null);
  if (idle) return idle;
  if (threads.length >= HASHER_THREADS) return null;
  const thread: HashThread = { worker: startWorker(), job: null };
  threads.push(thread);
  thread.worker.on('message', (reply: { id: number; key?: Uint8Array; error?: string }) => {
    const job = thread.job;
    if (!job || job.id !== reply.id) return;
    if (reply.key) job.resolve(Buffer.from(reply.key.buffer, reply.key.byteOffset, reply.key.byteLength));
    else job.reject(new Error(reply.error ?? 'password hashing failed'));
    finished(thread);
  });
  // A thread that dies fails its job and leaves the pool; the next hash starts a fresh one.
  const lost = (err: Error) => {
    const index = threads.indexOf(thread);
    if (index < 0) return;
    threads.splice(index, 1);
    thread.job?.reject(err);
    thread.job = null;
    const next = waiting.shift();
    if (next) {
      const fresh = freeThread();
      if (fresh) run(fresh, next);
      else waiting.unshift(next);
    }
  };
  thread.worker.on('error', lost);
  thread.worker.on('exit', () => lost(new Error('the password-hashing thread ended')));
  return thread;
}

function startWorker(): Worker {
  // CommonJS whatever flags started this process (see imaging/read-qr-image.ts).
  const worker = new Worker(HASH_WORKER_SOURCE, { eval: true, execArgv: [] });
  // An idle thread must not keep the process alive; a busy one must (a CLI awaiting its hash).
  worker.unref();
  return worker;
}

function run(thread: HashThread, job: Pending): void {
  thread.job = job;
  thread.worker.ref();
  thread.worker.postMessage({
    id: job.id,
    password: job.password,
    salt: job.salt,
    keyLength: job.keyLength,
    options: job.options,
  });
}

function finished(thread: HashThread): void {
  thread.job = null;
  const next = waiting.shift();
  if (next) run(thread, next);
  else thread.worker.unref();
}
