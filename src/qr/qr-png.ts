// QR images as PNG. qrcode's own PNG path builds an RGBA bitmap and runs it through pngjs; a QR code is
// pure black/white, so we take only the module matrix from qrcode and write a 1-bit greyscale PNG
// ourselves: 32x fewer pixel bytes to build and deflate.
import { crc32 as zlibCrc32, deflateSync } from 'node:zlib';
import { checkInt, DEFAULT_MARGIN, memoised, qrMatrix } from './qr-matrix.js';

export interface QrPngOptions {
  /** Pixels per module. Default: 8, reduced for large symbols so the image stays within ~400 px. */
  scale?: number;
  /** Quiet-zone width in modules. Default 4 (the minimum the QR spec asks for). */
  margin?: number;
}

const DEFAULT_SCALE = 8;
const DEFAULT_MAX_PX = 400;

/**
 * CRC-32 (ISO-HDLC, as PNG requires) over several buffers, so chunk type and data need no concat. Node's
 * own (zlib.crc32, native) continues a CRC from the value it is given.
 */
export function crc32(...parts: Uint8Array[]): number {
  let c = 0;
  for (const buf of parts) c = zlibCrc32(buf, c);
  return c;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc32(head.subarray(4), data), 0);
  return Buffer.concat([head, data, tail]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function renderQrPng(text: string, options: QrPngOptions = {}): Buffer {
  const { size, data } = qrMatrix(text);
  const margin = checkInt('margin', options.margin ?? DEFAULT_MARGIN, 0, 64);
  const span = size + 2 * margin;
  const scale =
    options.scale === undefined
      ? Math.max(1, Math.min(DEFAULT_SCALE, Math.floor(DEFAULT_MAX_PX / span)))
      : checkInt('scale', options.scale, 1, 64);
  const width = span * scale;

  const rowBytes = 1 + Math.ceil(width / 8); // filter byte + packed pixels
  const raw = Buffer.alloc(rowBytes * width);
  const line = Buffer.alloc(rowBytes);
  for (let my = 0; my < span; my++) {
    // Start white (bit = 1) and clear bits for dark modules; filter byte 0 = "None".
    line.fill(0xff);
    line[0] = 0;
    const r = my - margin;
    if (r >= 0 && r < size) {
      for (let c = 0; c < size; c++) {
        if (!data[r * size + c]) continue;
        const x0 = (c + margin) * scale;
        for (let x = x0; x < x0 + scale; x++) line[1 + (x >> 3)]! &= ~(0x80 >> (x & 7));
      }
    }
    // Every pixel row of a module row is identical.
    for (let k = 0; k < scale; k++) line.copy(raw, (my * scale + k) * rowBytes);
  }

  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(width, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // colour type: greyscale
  ihdr[10] = 0; // compression: deflate
  ihdr[11] = 0; // filter method 0
  ihdr[12] = 0; // no interlace
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function qrPngDataUrl(text: string): string {
  return `data:image/png;base64,${cachedQrPng(text).toString('base64')}`;
}

/** renderQrPng with default options, memoised (~1-2 KB each, 2,000 under 4 MB). Callers must not modify the buffer. */
export const cachedQrPng = memoised((text) => renderQrPng(text), 2000);
