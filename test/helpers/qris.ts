import { buildQris } from '../../src/domain/qris/index.js';

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
