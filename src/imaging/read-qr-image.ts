// Reads the QR code in an uploaded PNG or JPEG: typically a merchant's phone photo of their printed
// QRIS sticker, 12 MP and several MB, tilted, unevenly lit and noisy. Cheap checks run here, on the
// main thread, before anything is decoded (size, format, declared dimensions); the decoding runs in a
// short-lived process of its own (qr-worker-source.ts) that is killed at the deadline, and only a few
// run at once, so a burst of uploads can neither block the event loop, nor take the whole machine, nor
// leave its memory with the gateway.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
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
 * The long side of the one closer look at a picture larger than WORKING_SIZE: a 12 MP phone photo is
 * seen whole; a larger one (up to maxPixels, 50 MP) is shrunk to this, which bounds the pixels a
 * decoder holds at once (4000x4000 RGBA, 64 MB, plus ZXing's copy) instead of letting the declared size
 * decide it.
 */
const CLOSE_SIZE = 4000;
/**
 * The JS heap a decoder process may use (its pixels live outside it, in Buffers and ZXing's
 * WebAssembly memory, which maxPixels and CLOSE_SIZE bound).
 */
const DECODER_HEAP_MB = 256;

export interface QrImageReader {
  read(bytes: Uint8Array, options?: ReadQrImageOptions): Promise<string>;
  /** Decoder processes alive now. */
  readonly active: number;
  /** Calls waiting for a decoder. */
  readonly waiting: number;
  /** The most decoders alive at once and the most calls waiting at once, since the reader was made. */
  readonly peak: { readonly active: number; readonly waiting: number };
  /** Stops every decoder and refuses calls in progress and to come (service_unavailable). */
  close(): Promise<void>;
}

interface Packages {
  sharpPath: string;
  zxingPath: string;
  wasmPath: string;
}

let packages: Packages | null = null;

function loadPackages(): Packages {
  if (packages === null) {
    const require = createRequire(import.meta.url);
    packages = {
      sharpPath: require.resolve('sharp'),
      zxingPath: require.resolve('zxing-wasm/reader'),
      wasmPath: require.resolve('zxing-wasm/reader/zxing_reader.wasm'),
    };
  }
  return packages;
}

/**
 * The decoder's environment: what libvips and the C library read, not the gateway's secrets (a
 * database URL, SMTP password); nor NODE_OPTIONS, whose loader or ESM flag would break its CommonJS.
 */
function decoderEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) =>
      /^(PATH|HOME|TMPDIR|TZ|LANG|LC_\w+|VIPS_\w+|MALLOC_\w+)$/.test(name),
    ),
  );
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

type Reply =
  | { texts: string[] }
  | { code: 'qr_not_found' | 'image_corrupt' | 'image_decode_timeout' | 'decoder_busy'; message: string };

/** EMVCo merchant-presented payloads (every QRIS) start with tag 00 = "01". */
const EMV_PAYLOAD = /^000201/;

function timedOut(timeoutMs: number, where: string): AppError {
  return new AppError('image_decode_timeout', `the image was not read within ${timeoutMs} ms (${where})`, {
    param: 'image',
    retryAfter: 5,
  });
}

/** The machine, not the picture: no decoder could run or finish for want of memory or threads. */
function decoderBusy(why: string): AppError {
  return new AppError('service_unavailable', `the image could not be read now (${why}); try again shortly`, {
    retryAfter: 5,
  });
}

/**
 * Why a decoder ended without answering (never killed by the reader: that settles first). Its JS heap
 * bound is the picture's doing (413); a kill from outside (the system's OOM killer) is the machine's
 * (503); any other crash came from reading this file (422), so retrying it would not help.
 */
function withoutAnswer(stderr: string, signal: NodeJS.Signals | null): AppError {
  if (/heap out of memory/i.test(stderr))
    return new AppError('image_too_large', 'decoding the image needs more memory than a decoder may use', {
      param: 'image',
    });
  if (signal === 'SIGKILL' || signal === 'SIGTERM') return decoderBusy('the decoder was stopped from outside');
  return new AppError('image_corrupt', 'the image could not be decoded (the decoder failed on it)', { param: 'image' });
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
  const children = new Map<ChildProcess, (reason: AppError) => void>();
  const queue: Array<{ grant: () => void; fail: (reason: AppError) => void }> = [];
  let closed = false;
  let slotsTaken = 0;
  // High-water marks, kept where the counts change, so a caller learns them without sampling.
  const peak = { active: 0, waiting: 0 };

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
      peak.waiting = Math.max(peak.waiting, queue.length);
    });

  /** Runs one decoder process. */
  const decode = (job: Job) =>
    new Promise<string[]>((resolve, reject) => {
      let child: ChildProcess;
      let paths: Packages;
      try {
        paths = loadPackages();
        child = spawn(process.execPath, [`--max-old-space-size=${DECODER_HEAP_MB}`, '-e', QR_WORKER_SOURCE], {
          stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
          // Buffers cross as bytes, not as JSON arrays of numbers.
          serialization: 'advanced',
          env: decoderEnv(),
        });
      } catch (err) {
        release();
        reject(decoderBusy(`no decoder could start: ${err instanceof Error ? err.message : String(err)}`));
        return;
      }
      let settled = false;
      let stderr = '';
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      /** The hard bound: the caller hears now, and the process is killed (its memory goes with it). */
      const stop = (reason: AppError) => {
        settle(() => reject(reason));
        child.kill('SIGKILL');
      };
      children.set(child, stop);
      peak.active = Math.max(peak.active, children.size);
      const timer = setTimeout(() => stop(timedOut(job.timeoutMs, 'decoding')), Math.max(0, job.deadline - Date.now()));
      // V8 says why it gave up on stderr; the first few KB are enough to tell.
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        if (stderr.length < 4096) stderr += chunk;
      });
      // 'close' also follows a process that never started ('error' then, no 'exit'). The slot is
      // freed when the process is gone, not when it answers: the limit counts processes.
      child.once('close', (_code, signal) => {
        children.delete(child);
        release();
        settle(() => reject(withoutAnswer(stderr, signal)));
      });
      child.on('error', (err) => stop(decoderBusy(`the decoder failed: ${err.message}`)));
      child.once('message', (reply: Reply) => {
        settle(() => {
          if ('texts' in reply) resolve(reply.texts);
          else if (reply.code === 'image_decode_timeout') reject(timedOut(job.timeoutMs, 'decoding'));
          else if (reply.code === 'decoder_busy') reject(decoderBusy(reply.message));
          else reject(new AppError(reply.code, reply.message, { param: 'image' }));
        });
      });
      const { bytes, width, height, maxPixels, deadline } = job;
      child.send(
        { bytes, width, height, maxPixels, deadline, workingSize: WORKING_SIZE, closeSize: CLOSE_SIZE, ...paths },
        (err) => {
          if (err) stop(decoderBusy(`the decoder could not be given the image: ${err.message}`));
        },
      );
    });

  return {
    get active() {
      return children.size;
    },
    get waiting() {
      return queue.length;
    },
    get peak() {
      return { ...peak };
    },
    async read(bytes, options = {}) {
      if (closed) throw shuttingDown();
      const timeoutMs = positive('timeoutMs', options.timeoutMs ?? QR_IMAGE_DEFAULTS.timeoutMs);
      const maxBytes = positive('maxBytes', options.maxBytes ?? QR_IMAGE_DEFAULTS.maxBytes);
      const maxPixels = positive('maxPixels', options.maxPixels ?? QR_IMAGE_DEFAULTS.maxPixels);
      const deadline = Date.now() + timeoutMs;
      if (bytes.byteLength > maxBytes) {
        throw new AppError('image_too_large', `the image is ${bytes.byteLength} bytes, the limit is ${maxBytes}`, {
          param: 'image',
        });
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
      const running = [...children.keys()];
      const gone = running.map((c) => once(c, 'close'));
      for (const stop of children.values()) stop(shuttingDown());
      await Promise.all(gone);
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
