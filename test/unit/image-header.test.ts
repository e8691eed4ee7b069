import { describe, expect, it } from 'vitest';
import { readImageHeader, sniffFormat } from '../../src/imaging/image-header.js';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function pngHeader(width: number, height: number): Uint8Array {
  const bytes = Buffer.alloc(33);
  Buffer.from(PNG_SIGNATURE).copy(bytes, 0);
  bytes.writeUInt32BE(13, 8);
  bytes.write('IHDR', 12, 'ascii');
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  return bytes;
}

/** SOI, an APP0 segment, padding FFs, then a baseline SOF0 of the given size. */
function jpegHeader(width: number, height: number, sof = 0xc0): Uint8Array {
  const app0 = [0xff, 0xe0, 0x00, 0x06, 0x4a, 0x46, 0x49, 0x46];
  const frame = [0xff, 0xff, 0xff, sof, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03];
  return Uint8Array.from([0xff, 0xd8, ...app0, ...frame, ...Array(9).fill(0)]);
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
    return 'no error';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

describe('image headers', () => {
  it('sniffs PNG and JPEG by their magic bytes only', () => {
    expect(sniffFormat(pngHeader(1, 1))).toBe('png');
    expect(sniffFormat(jpegHeader(1, 1))).toBe('jpeg');
    expect(sniffFormat(Buffer.from('GIF89a'))).toBeNull();
    expect(sniffFormat(Buffer.from([0xff, 0xd8]))).toBeNull();
    expect(codeOf(() => readImageHeader(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')))).toBe(
      'image_unsupported',
    );
  });

  it('reads the declared size of a PNG and of a JPEG (baseline and progressive)', () => {
    expect(readImageHeader(pngHeader(30_000, 20_000))).toEqual({ format: 'png', width: 30_000, height: 20_000 });
    expect(readImageHeader(jpegHeader(4000, 3000))).toEqual({ format: 'jpeg', width: 4000, height: 3000 });
    expect(readImageHeader(jpegHeader(640, 480, 0xc2))).toEqual({ format: 'jpeg', width: 640, height: 480 });
  });

  it('calls a header it cannot read image_corrupt', () => {
    expect(codeOf(() => readImageHeader(pngHeader(1, 1).subarray(0, 20)))).toBe('image_corrupt');
    expect(codeOf(() => readImageHeader(pngHeader(0, 10)))).toBe('image_corrupt');
    expect(codeOf(() => readImageHeader(jpegHeader(4000, 3000).subarray(0, 12)))).toBe('image_corrupt');
    // Image data (SOS) before any frame header.
    expect(codeOf(() => readImageHeader(Uint8Array.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02])))).toBe('image_corrupt');
    // A segment length that points into the middle of nowhere.
    expect(codeOf(() => readImageHeader(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x03, 0x00, 0x12, 0x34])))).toBe(
      'image_corrupt',
    );
  });
});
