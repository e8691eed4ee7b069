// Deterministic stand-ins for what merchants upload: a clean PNG of a QR code, and "phone photos" of a
// printed QRIS sticker lying on a table (rotated, perspective-tilted, unevenly lit, noisy, slightly
// blurred, JPEG-compressed). Every random choice comes from a seeded generator, so a seed always gives
// the same image: the tests and scripts/compare-qr-decoders.mjs use the same pictures.
import QRCode from 'qrcode';
import sharp from 'sharp';

/** mulberry32: tiny, fast and good enough to place stickers and sprinkle noise. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface QrMatrix {
  size: number;
  /** Row-major, non-zero = dark module. */
  data: Uint8Array;
}

export function qrMatrix(text: string): QrMatrix {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  return { size: modules.size, data: modules.data };
}

/** A plain QR code, `scale` pixels per module with a 4-module quiet zone, as an 8-bit grey PNG. */
export async function renderCleanPng(text: string, scale = 8): Promise<Buffer> {
  const { size, data } = qrMatrix(text);
  const span = (size + 8) * scale;
  const pixels = Buffer.alloc(span * span, 255);
  for (let y = 0; y < span; y++) {
    const r = Math.floor(y / scale) - 4;
    if (r < 0 || r >= size) continue;
    for (let x = 0; x < span; x++) {
      const c = Math.floor(x / scale) - 4;
      if (c >= 0 && c < size && data[r * size + c]) pixels[y * span + x] = 0;
    }
  }
  return sharp(pixels, { raw: { width: span, height: span, channels: 1 } })
    .png()
    .toBuffer();
}

export interface PhotoOptions {
  seed: number;
  /** Image size; default 4000x3000 (a 12 MP phone photo). */
  width?: number;
  height?: number;
  /** Width of the QR symbol itself (without quiet zone) in image pixels, before perspective. */
  qrPixels: number;
  /** Rotation of the sticker in the image plane, degrees. */
  rotation: number;
  /** Perspective strength: how much larger the near edge looks than the far one (0.25 = 25%). */
  tilt: number;
  lighting: 'even' | 'gradient' | 'vignette';
  /** Standard deviation of per-pixel noise, in 0-255 levels. */
  noise: number;
  /** Gaussian blur sigma in pixels (0 = none). */
  blur: number;
  /** JPEG quality 1-100. */
  quality: number;
}

export interface Photo {
  /** RGB, 3 bytes a pixel, before blur and compression. */
  rgb: Buffer;
  width: number;
  height: number;
}

type Mat3 = [number, number, number, number, number, number, number, number, number];

function multiply(a: Mat3, b: Mat3): Mat3 {
  const out = new Array<number>(9).fill(0) as Mat3;
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++)
      out[r * 3 + c] = a[r * 3]! * b[c]! + a[r * 3 + 1]! * b[3 + c]! + a[r * 3 + 2]! * b[6 + c]!;
  }
  return out;
}

function invert([a, b, c, d, e, f, g, h, i]: Mat3): Mat3 {
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [
    A / det,
    -(b * i - c * h) / det,
    (b * f - c * e) / det,
    B / det,
    (a * i - c * g) / det,
    -(a * f - c * d) / det,
    C / det,
    -(a * h - b * g) / det,
    (a * e - b * d) / det,
  ];
}

// Sticker layout in module units: the QR with its quiet zone sits in a white card with a red header
// band (where the QRIS logo goes) and some grey "text" lines underneath, as printed stickers have.
const QUIET = 4;
const HEADER = 10;
const FOOTER = 14;
const SIDE = 3;

/** Draws the sticker photo's pixels. Cheap enough (~0.3 s for 12 MP) to run in a test. */
export function renderPhotoPixels(text: string, options: PhotoOptions): Photo {
  const width = options.width ?? 4000;
  const height = options.height ?? 3000;
  const random = seededRandom(options.seed);
  const { size, data } = qrMatrix(text);
  const qrSpan = size + 2 * QUIET;
  const cardW = qrSpan + 2 * SIDE;
  const cardH = HEADER + qrSpan + FOOTER;

  // Sticker (module units, centred on the QR) -> image: scale, rotate, tilt, then move to a random spot
  // that keeps the QR and its quiet zone inside the frame (a close-up may cut off the card's edges).
  const scale = options.qrPixels / size;
  const angle = (options.rotation * Math.PI) / 180;
  const tiltDir = random() * 2 * Math.PI;
  const diag = Math.SQRT2 * qrSpan * scale;
  const k = options.tilt / diag;
  // The tilt enlarges the near side by up to tilt/2.
  const reach = (diag / 2) * (1 + options.tilt) + 10;
  const cx = Math.min(width - reach, Math.max(reach, width / 2 + (random() - 0.5) * (width - 2 * reach)));
  const cy = Math.min(height - reach, Math.max(reach, height / 2 + (random() - 0.5) * (height - 2 * reach)));
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const toImage = multiply(
    [1, 0, cx, 0, 1, cy, 0, 0, 1],
    multiply(
      [1, 0, 0, 0, 1, 0, k * Math.cos(tiltDir), k * Math.sin(tiltDir), 1],
      multiply(
        [scale * cos, -scale * sin, 0, scale * sin, scale * cos, 0, 0, 0, 1],
        [1, 0, -cardW / 2, 0, 1, -(HEADER + qrSpan / 2), 0, 0, 1],
      ),
    ),
  );
  const [a, b, c, d, e, f, g, h, i] = invert(toImage);

  // Grey "text" lines under the code: random lengths, fixed per seed.
  const lines = [0, 1, 2].map(() => 0.4 + random() * 0.5);

  const lightAngle = random() * 2 * Math.PI;
  const lx = Math.cos(lightAngle) / width;
  const ly = Math.sin(lightAngle) / height;
  const vx = width * (0.3 + random() * 0.4);
  const vy = height * (0.3 + random() * 0.4);
  const vr = 1 / (Math.hypot(width, height) * 0.6) ** 2;

  // Noise from a table of Gaussian samples: a Box-Muller pair per pixel and channel is the slowest part
  // of the drawing otherwise, and a table indexed at random looks the same.
  const table = new Float32Array(65536);
  for (let t = 0; t < table.length; t += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - random()));
    const th = 2 * Math.PI * random();
    table[t] = r * Math.cos(th) * options.noise;
    table[t + 1] = r * Math.sin(th) * options.noise;
  }
  let state = (options.seed * 2654435761) >>> 0 || 1;

  const rgb = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const w = g * x + h * y + i;
      const u = (a * x + b * y + c) / w;
      const v = (d * x + e * y + f) / w;
      let R: number;
      let G: number;
      let B: number;
      if (u < 0 || v < 0 || u >= cardW || v >= cardH) {
        // A wooden table: brown with slow stripes.
        const grain = 18 * Math.sin(x * 0.004 + Math.sin(y * 0.002) * 3);
        R = 128 + grain;
        G = 92 + grain * 0.8;
        B = 60 + grain * 0.5;
      } else if (v < HEADER) {
        R = 200;
        G = 30;
        B = 40;
        if (v > HEADER * 0.3 && v < HEADER * 0.7 && Math.abs(u - cardW / 2) < cardW * 0.15) R = G = B = 245;
      } else {
        R = G = B = 238;
        const qy = Math.floor(v - HEADER) - QUIET;
        const qx = Math.floor(u - SIDE) - QUIET;
        if (qy >= 0 && qy < size && qx >= 0 && qx < size) {
          if (data[qy * size + qx]) R = G = B = 28;
        } else if (v > HEADER + qrSpan + 2) {
          const line = Math.floor((v - HEADER - qrSpan - 2) / 4);
          const within = (v - HEADER - qrSpan - 2) % 4;
          if (line < 3 && within < 2 && u > SIDE && u < SIDE + lines[line]! * (cardW - 2 * SIDE)) R = G = B = 90;
        }
      }
      let light = 1;
      if (options.lighting === 'gradient') light = 0.3 + 0.75 * (0.5 + (x - width / 2) * lx + (y - height / 2) * ly);
      else if (options.lighting === 'vignette') light = 1.05 - 0.75 * ((x - vx) ** 2 + (y - vy) ** 2) * vr;
      const o = (y * width + x) * 3;
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      const n = state >>> 16;
      rgb[o] = clamp(R * light + table[n]!);
      rgb[o + 1] = clamp(G * light + table[(n + 1) & 0xffff]!);
      rgb[o + 2] = clamp(B * light + table[(n + 2) & 0xffff]!);
    }
  }
  return { rgb, width, height };
}

function clamp(value: number): number {
  return value < 0 ? 0 : value > 255 ? 255 : value | 0;
}

/** The photo as a JPEG, the way a phone would send it. */
export async function renderPhotoJpeg(text: string, options: PhotoOptions): Promise<Buffer> {
  const { rgb, width, height } = renderPhotoPixels(text, options);
  let image = sharp(rgb, { raw: { width, height, channels: 3 } });
  if (options.blur > 0.3) image = image.blur(options.blur);
  return image.jpeg({ quality: options.quality, chromaSubsampling: '4:2:0' }).toBuffer();
}

/** A photo-like variant for a seed: what the decoder comparison sweeps over. */
export function photoVariant(seed: number): PhotoOptions {
  const random = seededRandom(seed * 7919 + 1);
  const lighting = (['even', 'gradient', 'vignette'] as const)[Math.floor(random() * 3)]!;
  return {
    seed,
    qrPixels: Math.round(250 + random() * 1250),
    rotation: random() * 45,
    tilt: random() * 0.3,
    lighting,
    noise: 4 + random() * 14,
    blur: random() * 1.5,
    quality: Math.round(70 + random() * 20),
  };
}
