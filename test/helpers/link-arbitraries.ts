// Links and addresses as someone hiding one in a text a payer reads would write them, and the ways of
// disguising them that a reader (or a mail client) still sees through. Shared by the tests of every text
// checked for links (merchant names, refund reasons and references: src/domain/link-text.ts).
import fc from 'fast-check';

export const label = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,9}$/);
const tld = fc.oneof(
  fc.stringMatching(/^[a-z]{2,8}$/),
  fc.constantFrom('com', 'id', 'co.id', 'xn--p1ai', 'みんな', 'рф'),
);
export const domain = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), tld)
  .map(([labels, top]) => `${labels.join('.')}.${top}`);

/** A URL, a domain, www., an e-mail address or an IPv4 address. */
export const address = fc.oneof(
  domain,
  domain.map((d) => `http://${d}/pulihkan`),
  domain.map((d) => `https://${d}`),
  domain.map((d) => `www.${d}`),
  fc.tuple(label, domain).map(([user, d]) => `${user}@${d}`),
  label.map((user) => `${user}@localhost`),
  fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((n) => n.join('.')),
  label.map((l) => `hxxp://${l}`),
  label.map((l) => `www.${l}`),
);

/** Ways of hiding a link from a plain pattern: capitals, look-alike full stops, invisible characters, full-width letters. */
export const disguise = fc.constantFrom(
  (s: string) => s,
  (s: string) => s.toUpperCase(),
  (s: string) => s.replaceAll('.', '\u3002'),
  (s: string) => s.replaceAll('.', '\uFF0E'),
  (s: string) => s.replaceAll('.', '\u200B.\u200B'),
  (s: string) => s.replace(/[a-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x61 + 0xff41)),
);
