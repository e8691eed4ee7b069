import { buildQris } from './qris/index.js';

// A fictional static QRIS: the acquirer domain, PAN and NMID are made up, so no real wallet will pay it.
// It exists so a first run can create and simulate-pay transactions with nothing configured.
export function demoStaticQris(): string {
  return buildQris([
    { tag: '00', value: '01' },
    { tag: '01', value: '11' },
    {
      tag: '26',
      value: '',
      children: [
        { tag: '00', value: 'ID.CO.EXAMPLE.WWW' },
        { tag: '01', value: '936000000000000001' },
        { tag: '02', value: 'DEMO000000000001' },
        { tag: '03', value: 'UMI' },
      ],
    },
    {
      tag: '51',
      value: '',
      children: [
        { tag: '00', value: 'ID.CO.QRIS.WWW' },
        { tag: '02', value: 'ID1020000000001' },
        { tag: '03', value: 'UMI' },
      ],
    },
    { tag: '52', value: '5812' },
    { tag: '53', value: '360' },
    { tag: '58', value: 'ID' },
    { tag: '59', value: 'Toko Demo Sandbox' },
    { tag: '60', value: 'JAKARTA' },
    { tag: '61', value: '10110' },
    { tag: '62', value: '', children: [{ tag: '07', value: 'A01' }] },
  ]);
}

/** On an empty database: a sandbox merchant and a test key, so the first `npm start` is usable at once. */
