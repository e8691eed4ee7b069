import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { cachedQrPng, crc32, qrPngDataUrl, renderQrPng } from '../../src/qr/qr-png.js';
import { renderQrSvg } from '../../src/qr/qr-svg.js';

// jsqr is CommonJS with ES-style typings: under NodeNext TypeScript types the default import as the
// module object with the function under `.default`. At runtime the function carries a `.default`
// pointing to itself, so this is correct both for the type checker and for Node.
const jsQR = jsQRModule.default;

// EMV-style TLV: two-digit tag, two-digit length, value.
const tlv = (tag: string, value: string): string => `${tag}${String(value.length).padStart(2, '0')}${value}`;

// A QRIS-like dynamic payload (structure only; the CRC field is a placeholder).
const QRIS_LIKE =
  tlv('00', '01') +
  tlv('01', '12') +
  tlv('26', tlv('00', 'ID.CO.EXAMPLE.WWW') + tlv('01', '936000000000000001') + tlv('02', '000000000000001')) +
  tlv('51', tlv('00', 'ID.CO.QRIS.WWW') + tlv('02', 'ID1020000000001') + tlv('03', 'UMI')) +
  tlv('52', '5812') +
  tlv('53', '360') +
  tlv('54', '125000') +
  tlv('58', 'ID') +
  tlv('59', 'Warung Sederhana') +
  tlv('60', 'Jakarta') +
  tlv('62', tlv('01', 'INV-2024-0001')) +
  '6304ABCD';

const PAYLOADS = ['hello', 'https://example.com/pay?id=42', QRIS_LIKE, 'x'.repeat(300)];

function decodePng(png: Buffer): { text: string | undefined; width: number } {
  const img = PNG.sync.read(png);
  const rgba = new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length);
  return { text: jsQR(rgba, img.width, img.height)?.data, width: img.width };
}

describe('renderQrPng', () => {
  it('uses a QRIS-sized payload of about 200 characters', () => {
    expect(QRIS_LIKE.length).toBeGreaterThanOrEqual(190);
    expect(QRIS_LIKE.length).toBeLessThanOrEqual(230);
  });

  it.each(PAYLOADS)('round-trips %s through pngjs + jsQR', (text) => {
    const { text: decoded, width } = decodePng(renderQrPng(text));
    expect(decoded).toBe(text);
    expect(width).toBeLessThanOrEqual(400);
  });

  it('round-trips with explicit scale and margin', () => {
    const png = renderQrPng(QRIS_LIKE, { scale: 3, margin: 2 });
    const size = QRCode.create(QRIS_LIKE, { errorCorrectionLevel: 'M' }).modules.size;
    const { text, width } = decodePng(png);
    expect(width).toBe((size + 4) * 3);
    expect(text).toBe(QRIS_LIKE);
  });

  it('writes a 1-bit greyscale PNG', () => {
    const png = renderQrPng('hello');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.toString('ascii', 12, 16)).toBe('IHDR');
    expect(png[24]).toBe(1); // bit depth
    expect(png[25]).toBe(0); // colour type: greyscale
    expect(png.toString('ascii', png.length - 8, png.length - 4)).toBe('IEND');
  });

  it('uses 8 px per module by default for small symbols', () => {
    const size = QRCode.create('hello', { errorCorrectionLevel: 'M' }).modules.size;
    expect(PNG.sync.read(renderQrPng('hello')).width).toBe((size + 8) * 8);
  });

  it('rejects nonsensical options', () => {
    expect(() => renderQrPng('x', { scale: 0 })).toThrow(RangeError);
    expect(() => renderQrPng('x', { scale: 1.5 })).toThrow(RangeError);
    expect(() => renderQrPng('x', { margin: -1 })).toThrow(RangeError);
  });
});

describe('crc32', () => {
  it('matches the standard check value', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32(Buffer.from('1234'), Buffer.from('56789'))).toBe(0xcbf43926);
  });
});

describe('qrPngDataUrl', () => {
  it('wraps the PNG as base64', () => {
    const url = qrPngDataUrl(QRIS_LIKE);
    expect(url.startsWith('data:image/png;base64,')).toBe(true);
    const png = Buffer.from(url.slice('data:image/png;base64,'.length), 'base64');
    expect(decodePng(png).text).toBe(QRIS_LIKE);
  });
});

describe('cachedQrPng', () => {
  it('renders each payload once and returns the same bytes as renderQrPng', () => {
    const text = `00020101021226${Date.now()}`;
    const first = cachedQrPng(text);
    expect(cachedQrPng(text)).toBe(first);
    expect(first.equals(renderQrPng(text))).toBe(true);
    expect(cachedQrPng(`${text}x`)).not.toBe(first);
  });
});

describe('renderQrSvg', () => {
  it('has a viewBox in module units, a white background and a single path', () => {
    const size = QRCode.create(QRIS_LIKE, { errorCorrectionLevel: 'M' }).modules.size;
    const svg = renderQrSvg(QRIS_LIKE);
    const span = size + 8;
    expect(svg).toContain(`viewBox="0 0 ${span} ${span}"`);
    expect(svg).toContain('shape-rendering="crispEdges"');
    expect(svg).toMatch(/<rect [^>]*fill="#fff"/);
    expect(svg.match(/<path /g)).toHaveLength(1);
    expect(svg).toMatch(/d="M\d+ \d+h\d+v1h-\d+z/);
    expect(svg).not.toMatch(/href|url\(/);
  });

  it('covers exactly the dark modules', () => {
    const { modules } = QRCode.create('hello', { errorCorrectionLevel: 'M' });
    const svg = renderQrSvg('hello', { margin: 0 });
    let dark = 0;
    for (const m of /d="([^"]*)"/.exec(svg)![1]!.matchAll(/M(\d+) (\d+)h(\d+)/g)) {
      const [x, y, run] = [Number(m[1]), Number(m[2]), Number(m[3])];
      for (let c = x; c < x + run; c++) expect(modules.get(y, c)).toBeTruthy();
      dark += run;
    }
    expect(dark).toBe(modules.data.reduce((n: number, v: number) => n + (v ? 1 : 0), 0));
  });
});
