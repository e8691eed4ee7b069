import { buildQris, parseQris, type TlvField } from '../../src/domain/qris/index.js';
import { demoStaticQris } from '../../src/domain/demo-qris.js';

/**
 * A static QRIS of a made-up merchant with this NMID: for tests that save more merchants than the
 * fixtures' three codes, each with an NMID of its own (a second merchant with an NMID is refused).
 * The gateway's own sandbox sticker, with the NMID (tags 26 and 51, sub-tag 02) and the name changed.
 */
export function staticQrisWithNmid(nmid: string, name = 'Toko Uji'): string {
  const swap = (f: TlvField): TlvField =>
    f.tag === '26' || f.tag === '51'
      ? { ...f, children: f.children!.map((c) => (c.tag === '02' ? { tag: '02', value: nmid } : c)) }
      : f.tag === '59'
        ? { tag: '59', value: name }
        : f;
  return buildQris(parseQris(demoStaticQris()).fields.map(swap));
}

/** The same static QRIS with another NMID (tag 51's sub-tag 02): one sticker's twin, for a second merchant. */
export function withNmid(qris: string, nmid: string): string {
  const swap = (f: TlvField): TlvField =>
    f.tag === '51' ? { ...f, children: f.children!.map((c) => (c.tag === '02' ? { tag: '02', value: nmid } : c)) } : f;
  return buildQris(parseQris(qris).fields.map(swap));
}
