// @ts-check
// `node scripts/compare-qr-decoders.mjs [variants per code]`: the figures behind src/imaging's choices.
// Draws photo-like pictures of the fixture static QRIS codes (test/helpers/qr-photo.ts, seeded, so every
// run sees the same pictures: rotated 0-45 degrees, QR 250-1500 px wide in a 4000x3000 frame, tilted,
// unevenly lit, noisy, slightly blurred, JPEG quality 70-90) and prints, per contender, how many it got
// right and its median and maximum time:
//   1. JPEG to pixels: jpeg-js (pure JS) against sharp (libvips), full size and shrunk to 2000 px;
//   2. QR decoders on the same pixels: jsqr against zxing-wasm, at full size and at 2000 px;
//   3. readQrImage itself (src/imaging), end to end from the JPEG bytes, worker and retries included.
// zxing-wasm gets its .wasm from node_modules; fetch is disabled here to prove nothing is downloaded.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { register } from 'tsx/esm/api';

const require = createRequire(import.meta.url);
const perCode = Number(process.argv[2] ?? 8);

globalThis.fetch = () => {
  throw new Error('compare-qr-decoders: something tried to use the network');
};

register();
// Loaded through tsx: the picture generator and the module are TypeScript.
const helper = '../test/helpers/qr-photo.ts';
const imaging = '../src/imaging/read-qr-image.ts';
const { photoVariant, renderPhotoJpeg } = await import(helper);
const sharp = (await import('sharp')).default;
const jpeg = (await import('jpeg-js')).default;
// jsqr is CommonJS with ES-style typings: the function is the default export at runtime.
const jsQR = /** @type {any} */ ((await import('jsqr')).default);
/** @type {any} */
const zxing = await import('zxing-wasm/reader');

const vectors = JSON.parse(
  readFileSync(new URL('../test/fixtures/qris-vectors.json', import.meta.url), 'utf8'),
).vectors;

zxing.prepareZXingModule({
  overrides: { wasmBinary: readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm')) },
});

/** @param {number[]} times */
function stats(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted.length === 0 ? 0 : sorted[Math.floor((sorted.length - 1) / 2)];
  return `median ${Math.round(median)} ms, max ${Math.round(sorted.at(-1) ?? 0)} ms`;
}

/** A result row: successes out of tries, and the times. */
function row(name, ok, tries, times) {
  process.stdout.write(`  ${name.padEnd(40)} ${String(ok).padStart(3)}/${tries}   ${stats(times)}\n`);
}

/** Halves an RGBA image (2x2 average) until its long side is at most `long`: a fair pure-JS shrink. */
function shrinkRgba(data, width, height, long) {
  while (Math.max(width, height) > long) {
    const w = width >> 1;
    const h = height >> 1;
    const out = new Uint8ClampedArray(w * h * 4);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const a = (2 * y * width + 2 * x) * 4;
        const b = a + width * 4;
        const o = (y * w + x) * 4;
        for (let c = 0; c < 4; c++)
          out[o + c] = (data[a + c] + data[a + 4 + c] + data[b + c] + data[b + 4 + c] + 2) >> 2;
      }
    }
    data = out;
    width = w;
    height = h;
  }
  return { data, width, height };
}

async function sharpRgba(bytes, long) {
  let image = sharp(bytes);
  if (long) image = image.resize({ width: long, height: long, fit: 'inside', withoutEnlargement: true });
  const { data, info } = await image.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.length),
    width: info.width,
    height: info.height,
  };
}

const cases = [];
let seed = 1;
process.stdout.write(`drawing ${perCode * vectors.length} photos (4000x3000)...\n`);
for (const vector of vectors) {
  for (let n = 0; n < perCode; n++, seed++) {
    const options = photoVariant(seed);
    cases.push({ payload: vector.static, options, bytes: await renderPhotoJpeg(vector.static, options) });
  }
}
const sizes = cases.map((c) => c.bytes.length / 1e6);
process.stdout.write(`JPEG sizes ${Math.min(...sizes).toFixed(1)}-${Math.max(...sizes).toFixed(1)} MB\n`);

process.stdout.write('\n1. JPEG (12 MP) to RGBA\n');
{
  const jsFull = [];
  const jsShrunk = [];
  const sharpFull = [];
  const sharpShrunk = [];
  for (const c of cases) {
    let t = performance.now();
    const decoded = jpeg.decode(c.bytes, {
      useTArray: true,
      formatAsRGBA: true,
      maxResolutionInMP: 100,
      maxMemoryUsageInMB: 1024,
    });
    jsFull.push(performance.now() - t);
    shrinkRgba(decoded.data, decoded.width, decoded.height, 2000);
    jsShrunk.push(performance.now() - t);
    t = performance.now();
    await sharpRgba(c.bytes);
    sharpFull.push(performance.now() - t);
    t = performance.now();
    await sharpRgba(c.bytes, 2000);
    sharpShrunk.push(performance.now() - t);
  }
  row('jpeg-js, full size', cases.length, cases.length, jsFull);
  row('jpeg-js + JS 2x shrink to 2000 px', cases.length, cases.length, jsShrunk);
  row('sharp, full size', cases.length, cases.length, sharpFull);
  row('sharp, shrink-on-load to 2000 px', cases.length, cases.length, sharpShrunk);
}

process.stdout.write('\n2. QR decoders on the same pixels (RGBA already decoded)\n');
for (const long of [0, 2000]) {
  const results = { jsqr: { ok: 0, times: [] }, zxing: { ok: 0, times: [] } };
  for (const c of cases) {
    const image = await sharpRgba(c.bytes, long);
    let t = performance.now();
    const found = jsQR(image.data, image.width, image.height, { inversionAttempts: 'dontInvert' });
    results.jsqr.times.push(performance.now() - t);
    if (found?.data === c.payload) results.jsqr.ok++;
    t = performance.now();
    const read = await zxing.readBarcodes(image, {
      formats: ['QRCode'],
      tryHarder: true,
      tryInvert: false,
      maxNumberOfSymbols: 1,
    });
    results.zxing.times.push(performance.now() - t);
    if (read[0]?.text === c.payload) results.zxing.ok++;
  }
  const label = long ? `${long} px` : '4000x3000';
  row(`jsqr, ${label}`, results.jsqr.ok, cases.length, results.jsqr.times);
  row(`zxing-wasm, ${label}`, results.zxing.ok, cases.length, results.zxing.times);
}

process.stdout.write('\n3. readQrImage (JPEG bytes to text: worker, sharp, zxing-wasm, retries)\n');
{
  const { readQrImage, closeQrImageReaders } = await import(imaging);
  let ok = 0;
  const times = [];
  for (const c of cases) {
    const t = performance.now();
    try {
      if ((await readQrImage(c.bytes)) === c.payload) ok++;
    } catch (err) {
      process.stdout.write(`  seed ${c.options.seed}: ${err.code ?? err}\n`);
    }
    times.push(performance.now() - t);
  }
  row('readQrImage', ok, cases.length, times);
  await closeQrImageReaders();
}
