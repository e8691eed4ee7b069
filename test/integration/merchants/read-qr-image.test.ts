import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { crc32 } from '../../../src/qr/qr-png.js';
import { closeQrImageReaders, createQrImageReader, readQrImage } from '../../../src/imaging/read-qr-image.js';
import { renderCleanPng, renderPhotoJpeg } from '../../helpers/qr-photo.js';
import { root, runCommand } from '../../helpers/processes.js';

const vectors = (
  JSON.parse(readFileSync(new URL('../../fixtures/qris-vectors.json', import.meta.url), 'utf8')) as {
    vectors: Array<{ static: string }>;
  }
).vectors;
const [first, second, third] = vectors.map((v) => v.static) as [string, string, string];

/** What a promise rejects with (an AppError's code and message), or code 'resolved'. */
async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  return promise.then(
    () => ({ code: 'resolved', message: '' }),
    (err: { code?: string; message: string }) => ({ code: err.code ?? 'no code', message: err.message }),
  );
}

const codeOf = async (promise: Promise<unknown>) => (await failure(promise)).code;

/** A PNG of one chunk list: signature, then [type, data] chunks with their CRCs. */
function png(chunks: Array<[string, Buffer]>): Buffer {
  const parts: Buffer[] = [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])];
  for (const [type, data] of chunks) {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'ascii');
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc32(head.subarray(4), data), 0);
    parts.push(head, data, tail);
  }
  return Buffer.concat(parts);
}

/** This process's children (pid and command), to find a decoder. */
const runPs = () => promisify(execFile)('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)]);

let clean: Buffer;
let photo: Buffer;
let small: Buffer;

beforeAll(async () => {
  clean = await renderCleanPng(first);
  // A phone photo of the sticker: 4000x3000, rotated 23 degrees, tilted, lit from one side, noisy.
  photo = await renderPhotoJpeg(second, {
    seed: 7,
    qrPixels: 1000,
    rotation: 23,
    tilt: 0.2,
    lighting: 'gradient',
    noise: 18,
    blur: 0.7,
    quality: 92,
  });
  small = await renderPhotoJpeg(third, {
    seed: 8,
    width: 800,
    height: 600,
    qrPixels: 300,
    rotation: 35,
    tilt: 0.15,
    lighting: 'vignette',
    noise: 8,
    blur: 0.5,
    quality: 75,
  });
});

afterAll(() => closeQrImageReaders());

describe('readQrImage', () => {
  it('reads a clean PNG render', async () => {
    expect(await readQrImage(clean)).toBe(first);
  });

  it('reads a code exported on a transparent background', async () => {
    const { data, info } = await sharp(clean).raw().toBuffer({ resolveWithObject: true });
    // Dark modules stay opaque black; light ones become transparent black, as a vector export makes them.
    const rgba = Buffer.alloc(info.width * info.height * 4);
    for (let i = 0; i < info.width * info.height; i++) rgba[i * 4 + 3] = data[i * info.channels]! < 128 ? 255 : 0;
    const transparent = await sharp(rgba, { raw: { width: info.width, height: info.height, channels: 4 } })
      .png()
      .toBuffer();
    expect(await readQrImage(transparent)).toBe(first);
  });

  it('reads a 12 MP phone photo of several MB within the bound', async () => {
    expect(photo.length).toBeGreaterThan(3_000_000);
    // timeoutMs is the bound: a read that took longer would reject with image_decode_timeout.
    expect(await readQrImage(photo, { timeoutMs: 8_000 })).toBe(second);
  });

  it('reads a small, scaled-down photo (quotes and ampersand intact)', async () => {
    expect(await readQrImage(small)).toBe(third);
  });

  it('refuses what is not a PNG or JPEG', async () => {
    expect(await codeOf(readQrImage(Buffer.from('GIF89a not really an image')))).toBe('image_unsupported');
    expect(await codeOf(readQrImage(new Uint8Array(0)))).toBe('image_unsupported');
    expect(await codeOf(readQrImage(Buffer.from('%PDF-1.7\n')))).toBe('image_unsupported');
  });

  it('refuses a truncated JPEG with image_corrupt', async () => {
    // Cut inside the pixel data: the header reads, the decoder finds the end too early.
    expect(await codeOf(readQrImage(photo.subarray(0, photo.length / 2)))).toBe('image_corrupt');
    // Cut inside the headers: refused before any decoder starts.
    expect(await codeOf(readQrImage(photo.subarray(0, 40)))).toBe('image_corrupt');
  });

  it('refuses a PNG whose header declares 30000x30000 before decoding it', async () => {
    const header = Buffer.alloc(13);
    header.writeUInt32BE(30_000, 0);
    header.writeUInt32BE(30_000, 4);
    header[8] = 8; // 8-bit grey
    const bomb = png([
      ['IHDR', header],
      ['IDAT', deflateSync(Buffer.alloc(1000))],
      ['IEND', Buffer.alloc(0)],
    ]);
    const reader = createQrImageReader();
    const read = reader.read(bomb);
    // Decided on the header alone: no decoder thread was started (a decode would say image_corrupt).
    expect(reader.active).toBe(0);
    const err = await failure(read);
    expect(err.code).toBe('image_too_large');
    expect(err.message).toContain('30000x30000');
    await reader.close();
  });

  it('refuses more bytes than maxBytes', async () => {
    expect(await codeOf(readQrImage(photo, { maxBytes: 1_000_000 }))).toBe('image_too_large');
    expect(await codeOf(readQrImage(clean, { maxPixels: 1000 }))).toBe('image_too_large');
  });

  it('says qr_not_found for a picture without a code', async () => {
    // 64x64 8-bit grey, every row filter 0 then 64 light pixels.
    const rows = Buffer.alloc(65 * 64, 200);
    for (let y = 0; y < 64; y++) rows[y * 65] = 0;
    const blank = png([
      ['IHDR', Buffer.from([0, 0, 0, 64, 0, 0, 0, 64, 8, 0, 0, 0, 0])],
      ['IDAT', deflateSync(rows)],
      ['IEND', Buffer.alloc(0)],
    ]);
    expect(await codeOf(readQrImage(blank))).toBe('qr_not_found');
  });

  // issue 23, finding 10: ZXing threw on these and the reader answered internal_error (a 500 upstream).
  it('says qr_not_found for pictures too small or thin to search (1x1, 1x500, 2x1)', async () => {
    for (const [width, height] of [
      [1, 1],
      [1, 500],
      [2, 1],
    ] as const) {
      const tiny = await sharp({ create: { width, height, channels: 3, background: '#ffffff' } })
        .png()
        .toBuffer();
      expect(await failure(readQrImage(tiny)), `${width}x${height}`).toEqual({
        code: 'qr_not_found',
        message: 'no QR code was found in the image',
      });
    }
  });

  // issue 23, finding 10: a decoder that dies for want of memory is the machine's problem: 503 with
  // Retry-After, never a 500 (here it is killed as the system's OOM killer would).
  it('answers service_unavailable with retryAfter when a decoder is killed from outside', async () => {
    const decoderPids = async () => {
      const { stdout } = await runPs();
      return stdout
        .split('\n')
        .filter((l) => l.includes('--max-old-space-size=256'))
        .map((l) => Number(l.trim().split(/\s+/)[0]));
    };
    // A decoder of an earlier test may still be on its way out: only this read's own is killed.
    const earlier = new Set(await decoderPids());
    const reader = createQrImageReader({ concurrency: 1 });
    const read = reader.read(photo).then(
      () => null,
      (err: { code?: string; retryAfter?: number }) => err,
    );
    const pid = await vi.waitFor(
      async () => {
        const found = (await decoderPids()).find((p) => !earlier.has(p));
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 5_000, interval: 20 },
    );
    process.kill(pid, 'SIGKILL');
    expect(await read).toMatchObject({ code: 'service_unavailable', retryAfter: 5 });
    await vi.waitFor(() => expect(reader.active).toBe(0), { timeout: 2_000, interval: 20 });
    await reader.close();
  });

  it('answers image_decode_timeout at timeoutMs, and the decoder thread is gone soon after', async () => {
    const reader = createQrImageReader();
    const started = Date.now();
    expect(await codeOf(reader.read(photo, { timeoutMs: 120 }))).toBe('image_decode_timeout');
    // Not early, and not after the decoder: the answer comes while its process still runs (it can read
    // this photo, so only the timeout stopped it answering with the text).
    expect(Date.now() - started).toBeGreaterThanOrEqual(120);
    expect(reader.active).toBe(1);
    // A thread inside libvips is let finish its job (sharp's own timeout) rather than killed mid-way.
    await vi.waitFor(() => expect(reader.active).toBe(0), { timeout: 4_000, interval: 20 });
    // The reader still works afterwards.
    expect(await reader.read(clean)).toBe(first);
    await reader.close();
  });

  it('runs at most `concurrency` decodes at once; the others wait their turn', async () => {
    const reader = createQrImageReader({ concurrency: 2 });
    // The reader keeps its own high-water marks, so nothing here depends on how fast the machine is;
    // a long timeout, because the fifth read's wait for a decoder counts in it.
    const reads = Array.from({ length: 5 }, () => reader.read(small, { timeoutMs: 120_000 }));
    const texts = await Promise.all(reads);
    expect(texts).toEqual(Array(5).fill(third));
    // All five asked at once: two decoded, three waited.
    expect(reader.peak).toEqual({ active: 2, waiting: 3 });
    expect(reader.waiting).toBe(0);
    // A decoder answers, then exits: the last one may still be on its way out.
    await vi.waitFor(() => expect(reader.active).toBe(0), { timeout: 10_000, interval: 20 });
    await reader.close();
  });

  it('counts the wait for a decoder in timeoutMs', async () => {
    const reader = createQrImageReader({ concurrency: 1 });
    const busy = reader.read(photo);
    const err = await failure(reader.read(clean, { timeoutMs: 50 }));
    expect(err.code).toBe('image_decode_timeout');
    expect(err.message).toContain('waiting for a free decoder');
    expect(reader.waiting).toBe(0);
    expect(await busy).toBe(second);
    await reader.close();
  });

  it('refuses calls in progress once closed', async () => {
    const reader = createQrImageReader({ concurrency: 1 });
    const running = reader.read(photo);
    const queued = reader.read(clean);
    const codes = Promise.all([codeOf(running), codeOf(queued)]);
    await reader.close();
    expect(await codes).toEqual(['service_unavailable', 'service_unavailable']);
    expect(reader.active).toBe(0);
  });
});

// issue 23, finding 13: decoded in worker threads, decompression bombs left their memory with the
// gateway (8 uploads of a 49 MP PNG of 0.8 MB: 86 MB -> 459 MB, idle). Decoders are processes now.
describe('readQrImage and decompression bombs', () => {
  it("keeps the gateway's memory flat over repeated bombs, timed out or not", { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qg-bomb-'));
    try {
      // Run in a fresh process so that nothing else this file decoded counts.
      const script = join(dir, 'bombs.mts');
      writeFileSync(
        script,
        `
        import { deflateSync } from 'node:zlib';
        import { crc32 } from ${JSON.stringify(join(root, 'src', 'qr', 'qr-png.ts'))};
        import { closeQrImageReaders, readQrImage } from ${JSON.stringify(join(root, 'src', 'imaging', 'read-qr-image.ts'))};
        const chunk = (type, data) => {
          const head = Buffer.alloc(8);
          head.writeUInt32BE(data.length, 0);
          head.write(type, 4, 'ascii');
          const tail = Buffer.alloc(4);
          tail.writeUInt32BE(crc32(head.subarray(4), data), 0);
          return [head, data, tail];
        };
        // 7000x7000 RGBA (49 MP, under the 50 MP limit): 196 MB of pixels in well under 1 MB.
        const side = 7000;
        const ihdr = Buffer.alloc(13);
        ihdr.writeUInt32BE(side, 0);
        ihdr.writeUInt32BE(side, 4);
        ihdr[8] = 8;
        ihdr[9] = 6;
        const row = 1 + side * 4;
        const raw = Buffer.alloc(row * side);
        for (let y = 0; y < side; y++) for (let x = 1; x < row; x += 997) raw[y * row + x] = (x * y) & 255;
        const bomb = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ...chunk('IHDR', ihdr), ...chunk('IDAT', deflateSync(raw)), ...chunk('IEND', Buffer.alloc(0))]);
        raw.fill(0);
        globalThis.gc();
        const before = process.memoryUsage().rss;
        const codes = [];
        for (let i = 0; i < 3; i++) {
          const pair = [0, 1].map(() => readQrImage(bomb, { timeoutMs: 3000 }).then(() => 'read', (e) => e.code));
          codes.push(...(await Promise.all(pair)));
        }
        await new Promise((r) => setTimeout(r, 500));
        globalThis.gc();
        console.log(JSON.stringify({ bytes: bomb.length, codes, before, after: process.memoryUsage().rss }));
        await closeQrImageReaders();
        `,
      );
      const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let errors = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (errors += c));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, errors).toBe(0);
      const result = JSON.parse(out.trim().split('\n').at(-1)!) as {
        bytes: number;
        codes: string[];
        before: number;
        after: number;
      };
      expect(result.bytes).toBeLessThan(1_000_000);
      for (const c of result.codes) expect(['qr_not_found', 'image_decode_timeout']).toContain(c);
      // Threads kept ~370 MB of 8 bombs; a process per decode keeps nothing. The ceiling is generous.
      expect((result.after - result.before) / 1e6).toBeLessThan(150);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('readQrImage from the built dist/', () => {
  // Long: the first test to run the entry point after an edit compiles dist/.
  it('decodes, times out, and lets the process exit without being closed', { timeout: 150_000 }, async () => {
    // The real entry point compiles dist/ when it is stale (a no-op when another test already did).
    expect((await runCommand(['--version'], {})).code).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'qg-qr-'));
    try {
      writeFileSync(join(dir, 'clean.png'), clean);
      writeFileSync(join(dir, 'photo.jpg'), photo);
      const script = `
        import { readFileSync } from 'node:fs';
        const { readQrImage } = await import(${JSON.stringify(join(root, 'dist', 'imaging', 'read-qr-image.js'))});
        const dir = ${JSON.stringify(dir)};
        console.log(await readQrImage(readFileSync(dir + '/clean.png')));
        console.log(await readQrImage(readFileSync(dir + '/photo.jpg'), { timeoutMs: 150 }).catch((e) => e.code));
      `;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let errors = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (errors += c));
      const exited = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve(null);
        }, 15_000);
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve(code);
        });
      });
      expect(errors).toBe('');
      expect(exited).toBe(0);
      expect(out.trim().split('\n')).toEqual([first, 'image_decode_timeout']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
