import { buildQris, parseQris, type TlvField } from '../../src/domain/qris/index.js';

/**
 * A static QRIS of a made-up merchant with this NMID: for tests that save more merchants than the
 * fixtures' three codes, each with an NMID of its own (a second merchant with an NMID is refused).
 */
export function staticQrisWithNmid(nmid: string, name = 'Toko Uji'): string {
  return buildQris([
    { tag: '00', value: '01' },
    { tag: '01', value: '11' },
    {
      tag: '26',
      value: '',
      children: [
        { tag: '00', value: 'ID.CO.EXAMPLE.WWW' },
        { tag: '01', value: '936000000000000009' },
        { tag: '02', value: nmid },
        { tag: '03', value: 'UMI' },
      ],
    },
    {
      tag: '51',
      value: '',
      children: [
        { tag: '00', value: 'ID.CO.QRIS.WWW' },
        { tag: '02', value: nmid },
        { tag: '03', value: 'UMI' },
      ],
    },
    { tag: '52', value: '5812' },
    { tag: '53', value: '360' },
    { tag: '58', value: 'ID' },
    { tag: '59', value: name },
    { tag: '60', value: 'JAKARTA' },
    { tag: '61', value: '10110' },
  ]);
}

/** The same static QRIS with another NMID (tag 51's sub-tag 02): one sticker's twin, for a second merchant. */
export function withNmid(qris: string, nmid: string): string {
  const swap = (f: TlvField): TlvField => (f.tag === '51' ? { ...f, children: f.children!.map((c) => (c.tag === '02' ? { tag: '02', value: nmid } : c)) } : f);
  return buildQris(parseQris(qris).fields.map(swap));
}
