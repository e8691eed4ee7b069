// @ts-check
// `node --expose-gc scripts/qr-bomb-memory.mjs [uploads] [at once]`: the figures behind issue 23,
// finding 13. Reads a decompression bomb (a 0.8 MB PNG declaring 7000x7000 RGBA, 49 MP, just under
// the 50 MP limit) `uploads` times through readQrImage, `at once` at a time, and prints this process's
// RSS before, at its peak and while idle afterwards, with the peak of its decoder processes together.
import { execFileSync } from 'node:child_process';
import { deflateSync } from 'node:zlib';
import { register } from 'tsx/esm/api';

register();
const { crc32 } = await import('../src/qr/qr-png.js');
const { closeQrImageReaders, readQrImage } = await import('../src/imaging/read-qr-image.js');

const uploads = Number(process.argv[2] ?? 36);
const atOnce = Number(process.argv[3] ?? 4);

/** @param {string} type @param {Buffer} data */
function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc32(head.subarray(4), data), 0);
  return [head, data, tail];
}

function bomb() {
  const side = 7000;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // 8 bits
  ihdr[9] = 6; // RGBA
  const row = 1 + side * 4;
  const raw = Buffer.alloc(row * side);
  // A sparse pattern: nothing to read, but not all one colour either.
  for (let y = 0; y < side; y++) for (let x = 1; x < row; x += 997) raw[y * row + x] = (x * y) & 255;
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    ...chunk('IHDR', ihdr),
    ...chunk('IDAT', deflateSync(raw)),
    ...chunk('IEND', Buffer.alloc(0)),
  ]);
}

const mb = (/** @type {number} */ bytes) => Math.round(bytes / 1e6);
/** RSS of this process's children together (the decoders), in MB. */
function childrenMb() {
  try {
    const out = execFileSync('ps', ['-o', 'rss=', '--ppid', String(process.pid)], { encoding: 'utf8' });
    return mb(
      out
        .split(/\s+/)
        .filter(Boolean)
        .reduce((sum, kb) => sum + Number(kb) * 1000, 0),
    );
  } catch {
    return 0; // no children: ps exits 1
  }
}

const gc = /** @type {(() => void) | undefined} */ (globalThis.gc);
const png = bomb();
// Let the 196 MB of pixels the bomb was made from go before measuring.
gc?.();
await new Promise((resolve) => setTimeout(resolve, 500));
const before = mb(process.memoryUsage().rss);
let peak = before;
let childrenPeak = 0;
const sampler = setInterval(() => {
  peak = Math.max(peak, mb(process.memoryUsage().rss));
  childrenPeak = Math.max(childrenPeak, childrenMb());
}, 200);
/** @type {Record<string, number>} */
const outcomes = {};
const started = Date.now();
for (let i = 0; i < uploads; i += atOnce) {
  const batch = Array.from({ length: Math.min(atOnce, uploads - i) }, () =>
    readQrImage(png).then(
      () => 'read',
      (/** @type {{ code?: string }} */ e) => e.code ?? 'error',
    ),
  );
  for (const code of await Promise.all(batch)) outcomes[code] = (outcomes[code] ?? 0) + 1;
}
const seconds = Math.round((Date.now() - started) / 1000);
clearInterval(sampler);
const idle = [];
for (const wait of [1000, 4000, 5000, 10_000]) {
  await new Promise((resolve) => setTimeout(resolve, wait));
  gc?.();
  idle.push(mb(process.memoryUsage().rss));
}
console.log(
  JSON.stringify({
    bombBytes: png.length,
    uploads,
    atOnce,
    outcomes,
    seconds,
    rssBeforeMb: before,
    rssPeakMb: peak,
    decodersPeakMb: childrenPeak,
    rssIdleMb: idle,
  }),
);
await closeQrImageReaders();
