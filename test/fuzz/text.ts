// Small text generators shared by the API fuzz (fuzz.test.ts) and the route-table fuzz (generators.ts).
import fc from 'fast-check';

/** Percent-encodes every byte of the UTF-8 form (never throws, unlike encodeURIComponent on lone surrogates). */
export const encodeAll = (s: string): string =>
  [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
export const encodeBytes = (bytes: Uint8Array): string =>
  [...bytes].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
/** The UTF-8 bytes of `s` as a latin1 string: what node:http then writes as raw, unencoded bytes. */
export const rawUtf8 = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');

// What Node's HTTP parser accepts in a header value: tab, visible ASCII, space, obs-text.
export const headerChar = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09))
  .map((c) => String.fromCharCode(c));
export const headerValue = fc.string({ unit: headerChar, maxLength: 80 });
// Raw (unencoded) URL text: visible ASCII except '#' (a fragment is never sent), stray '%' included on purpose.
export const urlChar = fc
  .integer({ min: 0x21, max: 0x7e })
  .filter((c) => c !== 0x23)
  .map((c) => String.fromCharCode(c));
