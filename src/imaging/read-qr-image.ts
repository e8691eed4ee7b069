// Reads the QR code in an uploaded PNG or JPEG: typically a merchant's phone photo of their printed
// QRIS sticker, 12 MP and several MB, tilted, unevenly lit and noisy. Cheap checks run here, on the
// main thread, before anything is decoded (size, format, declared dimensions); the decoding runs in a
// thread of its own (qr-worker-source.ts) that is terminated at the deadline, and only a few run at
// once, so a burst of uploads can neither block the event loop nor take the whole machine.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { AppError } from '../domain/errors.js';
import { readImageHeader } from './image-header.js';
import { QR_WORKER_SOURCE } from './qr-worker-source.js';

export interface ReadQrImageOptions {
  /** The whole call, waiting for a free decoder included. */
  timeoutMs?: number;
  /** Upload size limit. */
  maxBytes?: number;
  /** Limit on the width x height the header declares, checked before decoding. */
  maxPixels?: number;
}

export const QR_IMAGE_DEFAULTS = {
  timeoutMs: 8_000,
  maxBytes: 15 * 1024 * 1024,
  maxPixels: 50_000_000,
  /** Decodes at a time per reader; each takes about one core while it runs. */
  concurrency: 2,
} as const;

/** The long side the first attempts work at: enough for a sticker filling a fifth of a phone photo. */
const WORKING_SIZE = 2000;
/**
 * How long past its deadline a decoder inside libvips is left to finish before it is terminated all
 * the same. Terminating a thread while libvips works for it leaks that job's memory (measured: about
 * 9 MB a time for a 12 MP JPEG); sharp's own timeout, set to the deadline rounded up to a second, ends
 * the job sooner than this.
 */
const LIBVIPS_GRACE_MS = 3_000;

export interface QrImageReader {
  read(bytes: Uint8Array, options?: ReadQrImageOptions): Promise<string>;
  /** Decoder threads alive now (a stopped one lives on for as long as its libvips job, at most ~3 s). */
  readonly active: number;
  /** Calls waiting for a decoder. */
  readonly waiting: number;
  /** Stops every decoder and refuses calls in progress and to come (service_unavailable). */
  close(): Promise<void>;
}

interface Packages {
  sharpPath: string;
  zxingPath: string;
  wasm: Uint8Array;
}

let packages: Packages | null = null;

function loadPackages(): Packages {
  if (packages === null) {
    const require = createRequire(import.meta.url);
    // Loaded here too (and kept) so the native libraries stay mapped while decoder threads come and go,
    // as sharp's documentation asks for worker threads.
    require('sharp');
    packages = {
      sharpPath: require.resolve('sharp'),
      zxingPath: require.resolve('zxing-wasm/reader'),
      wasm: readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm')),
    };
  }
  return packages;
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

type Reply = { texts: string[] } | { code: 'qr_not_found' | 'image_corrupt' | 'image_decode_timeout' | 'decoder_busy'; message: string };

/** EMVCo merchant-presented payloads (every QRIS) start with tag 00 = "01". */
const EMV_PAYLOAD = /^000201/;

function timedOut(timeoutMs: number, where: string): AppError {
  return new AppError('image_decode_timeout', `the image was not read within ${timeoutMs} ms (${where})`, { param: 'image', retryAfter: 5 });
}

/** The machine, not the picture: no decoder could run or finish for want of memory or threads. */
function decoderBusy(why: string): AppError {
  return new AppError('service_unavailable', `the image could not be read now (${why}); try again shortly`, { retryAfter: 5 });
}

function shuttingDown(): AppError {
  return new AppError('service_unavailable', 'the image reader is shutting down', { retryAfter: 1 });
}

interface Job {
  bytes: Uint8Array;
  width: number;
  height: number;
  maxPixels: number;
  deadline: number;
  timeoutMs: number;
}

export function createQrImageReader(options: { concurrency?: number } = {}): QrImageReader {
  const concurrency = positive('concurrency', options.concurrency ?? QR_IMAGE_DEFAULTS.concurrency);
  const workers = new Map<Worker, (reason: AppError) => void>();
  const queue: Array<{ grant: () => void; fail: (reason: AppError) => void }> = [];
  let closed = false;
  let slotsTaken = 0;

  const release = () => {
    const next = queue.shift();
    if (next) next.grant();
    else slotsTaken--;
  };

  /** Resolves once a decoder slot is this caller's; rejects at the deadline or on close. */
  const acquire = (job: Job) =>
    new Promise<void>((resolve, reject) => {
      if (slotsTaken < concurrency) {
        slotsTaken++;
        resolve();
        return;
      }
      const waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
        fail: (reason: AppError) => {
          clearTimeout(timer);
          reject(reason);
        },
      };
      const timer = setTimeout(() => {
        queue.splice(queue.indexOf(waiter), 1);
        reject(timedOut(job.timeoutMs, 'waiting for a free decoder'));
      }, job.deadline - Date.now());
      queue.push(waiter);
    });

  /** Runs one decoder thread. */
  const decode = (job: Job) =>
    new Promise<string[]>((resolve, reject) => {
      let worker: Worker;
      // Set to 1 by the thread while libvips works for it (see LIBVIPS_GRACE_MS).
      const inLibvips = new Int32Array(new SharedArrayBuffer(4));
      try {
        const { sharpPath, zxingPath, wasm } = loadPackages();
        worker = new Worker(QR_WORKER_SOURCE, {
          eval: true,
          // Copied, not transferred: the caller keeps its buffer.
          workerData: {
            bytes: job.bytes,
            width: job.width,
            height: job.height,
            maxPixels: job.maxPixels,
            deadline: job.deadline,
            workingSize: WORKING_SIZE,
            sharpPath,
            zxingPath,
            wasm,
            inLibvips,
          },
          // Pixels live outside the JS heap (Buffers, WebAssembly memory); this bounds the rest.
          resourceLimits: { maxOldGenerationSizeMb: 256 },
          // The source is CommonJS whatever flags started this process (--input-type=module would
          // make an eval'd worker an ES module, where require does not exist).
          execArgv: [],
        });
      } catch (err) {
        release();
        reject(decoderBusy(`no decoder thread could start: ${err instanceof Error ? err.message : String(err)}`));
        return;
      }
      let settled = false;
      let stopReason: AppError | null = null;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      /** Ends the thread whatever it is doing (WebAssembly included), only letting a libvips job finish. */
      const end = () => {
        const since = Date.now();
        const terminate = () => {
          if (Atomics.load(inLibvips, 0) === 1 && Date.now() - since < LIBVIPS_GRACE_MS) setTimeout(terminate, 20);
          else void worker.terminate();
        };
        terminate();
      };
      /** The hard bound: the caller hears now, and the thread is ended. */
      const stop = (reason: AppError) => {
        if (stopReason !== null) return;
        stopReason = reason;
        settle(() => reject(reason));
        end();
      };
      workers.set(worker, stop);
      const timer = setTimeout(() => stop(timedOut(job.timeoutMs, 'decoding')), Math.max(0, job.deadline - Date.now()));
      // The slot is freed when the thread is gone, not when it answers: the limit counts threads.
      worker.once('exit', () => {
        workers.delete(worker);
        release();
        settle(() => reject(decoderBusy('the decoder stopped without an answer')));
      });
      worker.once('message', (reply: Reply) => {
        settle(() => {
          if ('texts' in reply) resolve(reply.texts);
          else if (reply.code === 'image_decode_timeout') reject(timedOut(job.timeoutMs, 'decoding'));
          else if (reply.code === 'decoder_busy') reject(decoderBusy(reply.message));
          else reject(new AppError(reply.code, reply.message, { param: 'image' }));
        });
        // Its one answer given, the thread has nothing left to do: it goes now, whatever it still holds.
        end();
      });
      worker.on('error', (err: Error & { code?: string }) => {
        // The thread reports its own failures as replies; what still escapes is the picture's doing
        // (the JS heap bound, an odd image): a clear refusal, never an internal error.
        if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
          settle(() => reject(new AppError('image_too_large', 'decoding the image needs more memory than a decoder may use', { param: 'image' })));
        } else {
          settle(() => reject(new AppError('qr_not_found', 'no readable QR code was found in the image', { param: 'image' })));
        }
      });
    });

  return {
    get active() {
      return workers.size;
    },
    get waiting() {
      return queue.length;
    },
    async read(bytes, options = {}) {
      if (closed) throw shuttingDown();
      const timeoutMs = positive('timeoutMs', options.timeoutMs ?? QR_IMAGE_DEFAULTS.timeoutMs);
      const maxBytes = positive('maxBytes', options.maxBytes ?? QR_IMAGE_DEFAULTS.maxBytes);
      const maxPixels = positive('maxPixels', options.maxPixels ?? QR_IMAGE_DEFAULTS.maxPixels);
      const deadline = Date.now() + timeoutMs;
      if (bytes.byteLength > maxBytes) {
        throw new AppError('image_too_large', `the image is ${bytes.byteLength} bytes, the limit is ${maxBytes}`, { param: 'image' });
      }
      const { format, width, height } = readImageHeader(bytes);
      if (width * height > maxPixels) {
        const mp = (n: number) => `${(n / 1e6).toFixed(1)} MP`;
        const message = `the ${format.toUpperCase()} is ${width}x${height} (${mp(width * height)}), the limit is ${mp(maxPixels)}`;
        throw new AppError('image_too_large', message, { param: 'image' });
      }
      const job: Job = { bytes, width, height, maxPixels, deadline, timeoutMs };
      await acquire(job);
      if (closed) {
        release();
        throw shuttingDown();
      }
      const texts = await decode(job);
      // A sticker photo may hold other codes too (a Wi-Fi or a shop's link): the payment code wins.
      return texts.find((t) => EMV_PAYLOAD.test(t)) ?? texts[0]!;
    },
    async close() {
      closed = true;
      for (const waiter of queue.splice(0)) waiter.fail(shuttingDown());
      const running = [...workers.keys()];
      for (const stop of workers.values()) stop(shuttingDown());
      await Promise.all(running.map((w) => once(w, 'exit')));
    },
  };
}

let shared: QrImageReader | null = null;

/**
 * The QR code's text in a PNG or JPEG (`bytes`), preferring an EMVCo payload when there are several.
 * Errors (AppError, `param: 'image'`): image_too_large (bytes over maxBytes, declared pixels over
 * maxPixels, or more memory than a decoder may use), image_unsupported (neither PNG nor JPEG),
 * image_corrupt (a header or data that cannot be decoded, e.g. a truncated file), qr_not_found,
 * image_decode_timeout (not read within timeoutMs, waiting for a decoder included), service_unavailable
 * (no decoder could run or finish for want of memory or threads; retryAfter set).
 */
export function readQrImage(bytes: Uint8Array, options?: ReadQrImageOptions): Promise<string> {
  shared ??= createQrImageReader();
  return shared.read(bytes, options);
}

/** Stops the shared reader's decoders (shutdown, tests); a later readQrImage starts a new reader. */
export async function closeQrImageReaders(): Promise<void> {
  const reader = shared;
  shared = null;
  await reader?.close();
}
