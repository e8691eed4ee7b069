// The point of sale's home-screen icon as a PNG of any size (the web app manifest names 192 and 512 px,
// which installers want as PNG): the checkout's icon (assets/icon.svg), three QR finder squares on the
// gateway's blue, drawn here so no binary file has to be kept in step with the SVG.
import { deflateSync } from 'node:zlib';
import { crc32 } from '../qr/qr-png.js';

const BLUE = [0x1a, 0x52, 0x76];
const WHITE = [0xff, 0xff, 0xff];

/** Whether the icon's 32-unit grid (the SVG's viewBox) is white at (x, y). */
function whiteAt(x: number, y: number): boolean {
  const finder = (left: number, top: number) => {
    const dx = x - left;
    const dy = y - top;
    if (dx < 0 || dy < 0 || dx >= 9 || dy >= 9) return false;
    const ring = dx < 2 || dy < 2 || dx >= 7 || dy >= 7;
    const centre = dx >= 3 && dx < 6 && dy >= 3 && dy < 6;
    return ring || centre;
  };
  return finder(4, 4) || finder(19, 4) || finder(4, 19) || (x >= 19 && x < 28 && y >= 19 && y < 28 && (x + y) % 4 < 2);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const name = Buffer.from(type, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(name, data));
  return Buffer.concat([length, name, data, crc]);
}

/** A square RGB PNG of `size` pixels. */
export function posIconPng(size: number): Buffer {
  const rowBytes = 1 + size * 3;
  const raw = Buffer.alloc(rowBytes * size);
  for (let py = 0; py < size; py++) {
    raw[py * rowBytes] = 0; // filter: none
    for (let px = 0; px < size; px++) {
      const colour = whiteAt(Math.floor((px * 32) / size), Math.floor((py * 32) / size)) ? WHITE : BLUE;
      raw.set(colour, py * rowBytes + 1 + px * 3);
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
