/**
 * The decoder process's program: one image in, the QR texts found (or why none) out, then the process
 * exits. sharp (libvips) turns the PNG or JPEG into pixels, shrinking a phone photo while it decodes it,
 * and zxing-wasm (ZXing-C++) finds the code. When the picture as it is gives nothing, variants are
 * tried, cheapest and likeliest first, until one reads or the deadline passes.
 *
 * A process of its own rather than a worker thread: the memory a decode takes (libvips' and the
 * allocator's arenas, ZXing's WebAssembly heap) goes back to the system when it exits, and it can be
 * killed at once at its deadline, inside libvips too. In a thread, that memory stayed with the gateway
 * (measured: 36 uploads of a 49 MP decompression bomb left the process at 565 MB, idle).
 *
 * Like src/storage/engine/checkpointer.ts, this is eval'd source rather than a module file, so the same
 * program runs from the TypeScript sources under vitest and from dist/ in production; the packages it
 * loads are resolved by the gateway and passed in as paths.
 *
 * The one message it receives: { bytes, width, height, maxPixels, deadline (epoch ms), workingSize,
 *   closeSize, sharpPath, zxingPath, wasmPath }
 * reply: { texts: string[] } | { code: 'qr_not_found' | 'image_corrupt' | 'image_decode_timeout' | 'decoder_busy', message }
 */
export const QR_WORKER_SOURCE = `
'use strict';
// Orphaned (the gateway gone): nobody waits for the answer.
process.on('disconnect', () => process.exit(0));
process.once('message', (workerData) => {
// Exits once the answer is on its way: the process holds nothing worth keeping.
const answer = (reply) => process.send(reply, () => process.exit(0));
const sharp = require(workerData.sharpPath);
const zxing = require(workerData.zxingPath);
const { bytes, maxPixels, deadline, workingSize, closeSize } = workerData;

// A process decodes one image: libvips' operation cache would only hold memory until it ends, and
// one libvips thread per decode is enough (the gateway runs a few decodes at once, each about a core).
sharp.cache(false);
sharp.concurrency(1);
// The .wasm shipped in the package: left to itself zxing-wasm would fetch it from a CDN.
zxing.prepareZXingModule({ overrides: { wasmBinary: require('node:fs').readFileSync(workerData.wasmPath) } });

class Stop extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function checkTime() {
  if (Date.now() >= deadline) throw new Stop('image_decode_timeout', 'the image was not read in time');
}

// RGBA pixels, the whole image shrunk to at most size px on its long side (0 = as it is). JPEG shrinks
// while decoding (libjpeg's DCT scaling), so a 12 MP photo costs about as much as a 3 MP one.
async function load(size) {
  checkTime();
  const seconds = Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
  // failOn 'error': a truncated or damaged file is refused rather than read as half an image.
  let image = sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error' }).timeout({ seconds });
  if (size > 0) image = image.resize({ width: size, height: size, fit: 'inside', withoutEnlargement: true });
  try {
    // A code exported on a transparent background has dark modules on "black" see-through pixels:
    // laid on white, as it would be printed.
    const { data, info } = await image.flatten({ background: '#ffffff' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
  } catch (err) {
    const message = String(err && err.message ? err.message : err);
    if (/timeout/i.test(message)) throw new Stop('image_decode_timeout', 'the image was not decoded in time');
    throw new Stop('image_corrupt', 'the image could not be decoded (truncated or damaged): ' + message.split('\\n')[0]);
  }
}

function grey(rgba) {
  const n = rgba.width * rgba.height;
  const out = new Uint8Array(n);
  const d = rgba.data;
  for (let i = 0, o = 0; i < n; i++, o += 4) out[i] = (77 * d[o] + 150 * d[o + 1] + 29 * d[o + 2]) >> 8;
  return { data: out, width: rgba.width, height: rgba.height };
}

function rgba(g) {
  const n = g.width * g.height;
  const out = new Uint8ClampedArray(n * 4);
  for (let i = 0, o = 0; i < n; i++, o += 4) {
    out[o] = out[o + 1] = out[o + 2] = g.data[i];
    out[o + 3] = 255;
  }
  return { data: out, width: g.width, height: g.height };
}

// Contrast stretched so the 1st and 99th percentiles become black and white: a dim or washed-out
// photo gets the full range before the global-histogram binarizer looks at it.
function stretch(g) {
  const histogram = new Uint32Array(256);
  for (const v of g.data) histogram[v]++;
  const cut = g.data.length / 100;
  let low = 0;
  for (let seen = 0; low < 255 && seen + histogram[low] <= cut; low++) seen += histogram[low];
  let high = 255;
  for (let seen = 0; high > low && seen + histogram[high] <= cut; high--) seen += histogram[high];
  const span = Math.max(1, high - low);
  const out = new Uint8Array(g.data.length);
  for (let i = 0; i < out.length; i++) out[i] = Math.max(0, Math.min(255, ((g.data[i] - low) * 255) / span));
  return { data: out, width: g.width, height: g.height };
}

// Black where a pixel is darker than the mean of a window around it (an eighth of the short side):
// survives a light gradient or vignette that defeats one global threshold.
function binarise(g) {
  const { width: w, height: h, data } = g;
  const sums = new Float64Array((w + 1) * (h + 1));
  for (let y = 0; y < h; y++) {
    let row = 0;
    for (let x = 0; x < w; x++) {
      row += data[y * w + x];
      sums[(y + 1) * (w + 1) + x + 1] = sums[y * (w + 1) + x + 1] + row;
    }
  }
  const r = Math.max(4, Math.round(Math.min(w, h) / 16));
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const y0 = Math.max(0, y - r);
    const y1 = Math.min(h, y + r + 1);
    for (let x = 0; x < w; x++) {
      const x0 = Math.max(0, x - r);
      const x1 = Math.min(w, x + r + 1);
      const sum = sums[y1 * (w + 1) + x1] - sums[y0 * (w + 1) + x1] - sums[y1 * (w + 1) + x0] + sums[y0 * (w + 1) + x0];
      out[y * w + x] = data[y * w + x] * (x1 - x0) * (y1 - y0) < sum * 0.9 ? 0 : 255;
    }
  }
  return { data: out, width: w, height: h };
}

function half(g) {
  const w = g.width >> 1;
  const h = g.height >> 1;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const a = 2 * y * g.width + 2 * x;
      out[y * w + x] = (g.data[a] + g.data[a + 1] + g.data[a + g.width] + g.data[a + g.width + 1] + 2) >> 2;
    }
  }
  return { data: out, width: w, height: h };
}

function rotate90(g) {
  const { width: w, height: h } = g;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) out[x * h + (h - 1 - y)] = g.data[y * w + x];
  return { data: out, width: h, height: w };
}

const READ = { formats: ['QRCode'], tryHarder: true, maxNumberOfSymbols: 4 };

// Memory running out is the machine's problem, not the picture's: the caller may try again later.
function isOutOfMemory(err) {
  const message = String(err && err.message ? err.message : err);
  return err instanceof RangeError || /out of memory|allocation failed|Cannot enlarge memory/i.test(message) || /\\bOOM\\b/.test(message);
}

async function read(image, options) {
  checkTime();
  let results;
  try {
    results = await zxing.readBarcodes(image, { ...READ, ...options });
  } catch (err) {
    // ZXing throws (a bare number: a C++ exception) on pictures too small or odd to search, such as
    // a 1x1 PNG: that attempt found nothing, like any other that finds nothing.
    if (isOutOfMemory(err)) throw new Stop('decoder_busy', 'the image decoder ran out of memory');
    return [];
  }
  return results.filter((r) => r.isValid && r.text.length > 0).map((r) => r.text);
}

async function main() {
  const base = await load(workingSize);
  const shrunk = base.width < workerData.width || base.height < workerData.height;
  let g = null;
  const greyBase = () => (g ??= grey(base));
  const attempts = [
    () => read(base, {}),
    // A small code in a large photo can lose its modules in the shrink: look closer once, at the full
    // size up to closeSize on the long side. A 50 MP picture in full would be 200 MB of pixels, copied
    // again into ZXing's memory: the cap keeps what one decoder holds near 100 MB, whatever it declares.
    shrunk ? async () => read(await load(Math.max(workerData.width, workerData.height) > closeSize ? closeSize : 0), {}) : null,
    () => read(rgba(stretch(greyBase())), { binarizer: 'GlobalHistogram' }),
    () => read(rgba(binarise(greyBase())), { binarizer: 'BoolCast' }),
    // A large, blurry code reads better smaller.
    () => read(rgba(half(greyBase())), { tryDownscale: false }),
    () => read(rgba(rotate90(greyBase())), { tryDenoise: true }),
  ];
  for (const attempt of attempts) {
    if (attempt === null) continue;
    const texts = await attempt();
    if (texts.length > 0) return { texts };
  }
  return { code: 'qr_not_found', message: 'no QR code was found in the image' };
}

main().then(
  (reply) => answer(reply),
  (err) => {
    if (err instanceof Stop) answer({ code: err.code, message: err.message });
    else if (isOutOfMemory(err)) answer({ code: 'decoder_busy', message: 'the image decoder ran out of memory' });
    // Anything else that went wrong reading the pixels still means: no code could be read from them.
    else answer({ code: 'qr_not_found', message: 'no readable QR code was found in the image' });
  },
);
});
`;
