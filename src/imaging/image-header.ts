// What an uploaded image says about itself before any pixel is decoded: its format, from the magic
// bytes, and its dimensions, from the header. Read on the main thread in microseconds, so a file that
// is not an image, or one whose header declares a decompression bomb, is refused without starting a
// decoder.
import { AppError } from '../domain/errors.js';

export type ImageFormat = 'png' | 'jpeg';

export interface ImageHeader {
  format: ImageFormat;
  width: number;
  height: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function corrupt(message: string): never {
  throw new AppError('image_corrupt', message, { param: 'image' });
}

export function sniffFormat(bytes: Uint8Array): ImageFormat | null {
  if (bytes.length >= 8 && PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return 'png';
  // Every JPEG starts with SOI (FF D8) followed by the first marker's FF.
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  return null;
}

/** Refuses anything but PNG and JPEG (image_unsupported) and a header it cannot read (image_corrupt). */
export function readImageHeader(bytes: Uint8Array): ImageHeader {
  const format = sniffFormat(bytes);
  if (format === null)
    throw new AppError('image_unsupported', 'the file is not a PNG or JPEG image', { param: 'image' });
  const { width, height } = format === 'png' ? pngSize(bytes) : jpegSize(bytes);
  if (width === 0 || height === 0)
    corrupt(`the ${format.toUpperCase()} header declares an empty image (${width}x${height})`);
  return { format, width, height };
}

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function pngSize(bytes: Uint8Array): { width: number; height: number } {
  // The signature, then the IHDR chunk: length 13, type, width, height (big-endian).
  if (bytes.length < 24) corrupt('the PNG ends before its header');
  const data = view(bytes);
  const type = String.fromCharCode(bytes[12]!, bytes[13]!, bytes[14]!, bytes[15]!);
  if (type !== 'IHDR' || data.getUint32(8) !== 13) corrupt('the PNG does not start with an IHDR header');
  return { width: data.getUint32(16), height: data.getUint32(20) };
}

// Start-of-frame markers carry the size: C0-CF except C4 (Huffman tables), C8 (reserved) and CC
// (arithmetic conditioning).
const isStartOfFrame = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

function jpegSize(bytes: Uint8Array): { width: number; height: number } {
  const data = view(bytes);
  let at = 2;
  for (;;) {
    // Markers may be padded with any number of FF bytes.
    while (at < bytes.length && bytes[at] === 0xff) at++;
    if (at >= bytes.length) corrupt('the JPEG ends before its frame header');
    const marker = bytes[at]!;
    at++;
    // Standalone markers (TEM, RST0-7) have no length.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    if (marker === 0xd9 || marker === 0xda) corrupt('the JPEG has no frame header before its image data');
    if (at + 2 > bytes.length) corrupt('the JPEG ends inside a segment header');
    const length = data.getUint16(at);
    if (length < 2) corrupt('the JPEG has a segment of impossible length');
    if (isStartOfFrame(marker)) {
      if (at + 7 > bytes.length) corrupt('the JPEG ends inside its frame header');
      return { height: data.getUint16(at + 3), width: data.getUint16(at + 5) };
    }
    at += length;
    if (at < bytes.length && bytes[at] !== 0xff) corrupt('the JPEG has a segment that does not end at a marker');
  }
}
