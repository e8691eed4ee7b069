// What the PNG and SVG renderers share: the module matrix from qrcode, option checks and the memo.
// Neither web nor mail owns QR images (the checkout page, the API and the payer's e-mail all draw
// them), so they live here, below all three.
import QRCode from 'qrcode';

export const DEFAULT_MARGIN = 4;

export interface Matrix {
  size: number;
  /** Row-major, non-zero = dark module. */
  data: Uint8Array;
}

export function qrMatrix(text: string): Matrix {
  // Level M is what QRIS issuers print; it balances damage tolerance against symbol density.
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  return { size: modules.size, data: modules.data };
}

export function checkInt(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer between ${min} and ${max}`);
  }
  return value;
}

// Rendering costs about 2 ms of main-thread CPU (mostly QRCode.create), and the same payload is drawn
// again and again: the PNG for qr_image_url, qr_image=inline and the payer's e-mail, the SVG for every
// load of the checkout page. ~1-2 KB per PNG (2,000 stay under 4 MB), ~9 KB per SVG (500 under 5 MB).

/**
 * `render` memoised in a small LRU keyed by the payload itself: an image is a pure function of it, so a
 * cached one can never be stale, and a transaction's payload never changes.
 */
export function memoised<T>(render: (text: string) => T, max: number): (text: string) => T {
  const cache = new Map<string, T>();
  return (text) => {
    const hit = cache.get(text);
    if (hit !== undefined) {
      // Re-insert so Map order is least-recently-used first.
      cache.delete(text);
      cache.set(text, hit);
      return hit;
    }
    const value = render(text);
    if (cache.size >= max) cache.delete(cache.keys().next().value!);
    cache.set(text, value);
    return value;
  };
}
