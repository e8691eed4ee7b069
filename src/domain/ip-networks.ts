// IP addresses and CIDR networks, parsed by hand rather than with node:net so that the rules are strict
// and the same everywhere (the operator's allow-list, the SSRF guard, add-time URL checks). Addresses are
// bigints: 32 bits for IPv4, 128 for IPv6, which makes prefix matching a shift and a compare.

export type IpFamily = 4 | 6;

export interface IpAddress {
  family: IpFamily;
  value: bigint;
}

export interface IpNetwork {
  family: IpFamily;
  /** The network address: host bits are always zero. */
  base: bigint;
  prefix: number;
  /** Canonical text, e.g. `127.0.0.0/8`, for messages and logs. */
  text: string;
}

const BITS: Record<IpFamily, number> = { 4: 32, 6: 128 };

/** Dotted quad only: no shorthand (`127.1`), no octal or hex parts, no leading zeros (`010` is ambiguous). */
function parseIpv4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseIpv6(text: string): bigint | null {
  // Zone ids (`fe80::1%eth0`) name an interface, not a destination: never valid here.
  if (text.includes('%') || text.length > 45) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (half: string): string[] => (half === '' ? [] : half.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const words: number[] = [];
  const all = [...head, ...(halves.length === 2 ? ['::'] : []), ...tail];
  for (let i = 0; i < all.length; i += 1) {
    const g = all[i]!;
    if (g === '::') {
      words.push(-1);
    } else if (i === all.length - 1 && g.includes('.')) {
      // An IPv4 tail (`::ffff:127.0.0.1`) stands for the last two groups.
      const v4 = parseIpv4(g);
      if (v4 === null) return null;
      words.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
    } else if (/^[0-9a-fA-F]{1,4}$/.test(g)) {
      words.push(parseInt(g, 16));
    } else {
      return null;
    }
  }
  const gap = words.indexOf(-1);
  if (gap === -1) {
    if (words.length !== 8) return null;
  } else {
    // `::` stands for at least one group of zeros.
    const fill = 8 - (words.length - 1);
    if (fill < 1) return null;
    words.splice(gap, 1, ...new Array<number>(fill).fill(0));
  }
  return words.reduce((acc, w) => (acc << 16n) | BigInt(w), 0n);
}

/** Parses an IPv4 or IPv6 address (IPv6 without brackets or zone), or returns null. */
export function parseIp(text: string): IpAddress | null {
  if (text.includes(':')) {
    const value = parseIpv6(text);
    return value === null ? null : { family: 6, value };
  }
  const value = parseIpv4(text);
  return value === null ? null : { family: 4, value };
}

export function formatIp(address: IpAddress): string {
  if (address.family === 4) {
    return [24n, 16n, 8n, 0n].map((s) => String((address.value >> s) & 0xffn)).join('.');
  }
  const words = Array.from({ length: 8 }, (_, i) => Number((address.value >> BigInt(112 - 16 * i)) & 0xffffn));
  // Compress the longest run (two or more) of zero groups, as RFC 5952 does.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && words[j] === 0) j += 1;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = words.map((w) => w.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

function mask(family: IpFamily, prefix: number): bigint {
  const bits = BigInt(BITS[family]);
  return ((1n << bits) - 1n) ^ ((1n << (bits - BigInt(prefix))) - 1n);
}

/**
 * Parses `address/prefix` strictly: a valid address, a decimal prefix within the family's width, and no
 * host bits set (`127.0.0.1/8` is refused, because the operator probably meant something else). A bare
 * address is a single host (/32 or /128).
 */
export function parseCidr(text: string): IpNetwork {
  const trimmed = text.trim();
  const slash = trimmed.indexOf('/');
  const addressText = slash === -1 ? trimmed : trimmed.slice(0, slash);
  const address = parseIp(addressText);
  if (address === null) throw new Error(`${JSON.stringify(text)} is not an IPv4 or IPv6 network`);
  const width = BITS[address.family];
  let prefix = width;
  if (slash !== -1) {
    const prefixText = trimmed.slice(slash + 1);
    if (!/^(0|[1-9][0-9]{0,2})$/.test(prefixText) || Number(prefixText) > width) {
      throw new Error(`${JSON.stringify(text)} has an invalid prefix length (0 to ${width})`);
    }
    prefix = Number(prefixText);
  }
  const base = address.value & mask(address.family, prefix);
  const canonical = `${formatIp({ family: address.family, value: base })}/${prefix}`;
  if (base !== address.value) throw new Error(`${JSON.stringify(text)} has host bits set; did you mean ${canonical}?`);
  return { family: address.family, base, prefix, text: canonical };
}

/** A comma-separated list of networks (the WEBHOOK_ALLOW_NETWORKS format); empty text is an empty list. */
export function parseNetworkList(text: string): IpNetwork[] {
  if (text.trim() === '') return [];
  return text.split(',').map((item) => {
    if (item.trim() === '') throw new Error('empty entry in the network list (stray comma?)');
    return parseCidr(item);
  });
}

export function networkContains(network: IpNetwork, address: IpAddress): boolean {
  return network.family === address.family && (address.value & mask(network.family, network.prefix)) === network.base;
}

/** `::ffff:a.b.c.d` is IPv4 a.b.c.d to the operating system, so it is judged as IPv4. */
export function unmapIpv4(address: IpAddress): IpAddress {
  if (address.family === 6 && address.value >> 32n === 0xffffn)
    return { family: 4, value: address.value & 0xffffffffn };
  return address;
}

const table = (rows: Array<[string, string]>) => rows.map(([cidr, why]) => ({ network: parseCidr(cidr), why }));

// Destinations a webhook must not reach unless the operator allows them: the gateway's own host, its
// private networks, cloud metadata services (169.254.169.254 is link-local), and addresses that are not
// unicast on the public internet at all.
const REFUSED = table([
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared address space (carrier-grade NAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (includes cloud metadata)'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'documentation'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved (includes broadcast)'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/8', 'reserved (includes IPv4-compatible)'],
  ['100::/64', 'discard-only'],
  ['64:ff9b:1::/48', 'private NAT64'],
  ['2001:db8::/32', 'documentation'],
  ['fc00::/7', 'private (unique local)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
]);

// IPv6 prefixes that carry an IPv4 address a gateway would translate to: judged by that address too.
const NAT64 = parseCidr('64:ff9b::/96');
const SIX_TO_FOUR = parseCidr('2002::/16');

/** Why this address is refused as a webhook destination, or null when it is a public unicast address. */
export function classifyAddress(address: IpAddress): string | null {
  const a = unmapIpv4(address);
  // Translated prefixes first: 64:ff9b::/96 lies inside ::/8, yet 64:ff9b::808:808 is 8.8.8.8.
  let embedded: IpAddress | null = null;
  if (networkContains(NAT64, a)) embedded = { family: 4, value: a.value & 0xffffffffn };
  else if (networkContains(SIX_TO_FOUR, a)) embedded = { family: 4, value: (a.value >> 80n) & 0xffffffffn };
  if (embedded) {
    const why = classifyAddress(embedded);
    return why === null ? null : `${why}, embedded as ${formatIp(embedded)}`;
  }
  for (const row of REFUSED) if (networkContains(row.network, a)) return row.why;
  return null;
}

/** Null when a connection to this address is permitted: public, or inside the operator's allow-list. */
export function refusalReason(address: IpAddress, allow: readonly IpNetwork[]): string | null {
  const why = classifyAddress(address);
  if (why === null) return null;
  const unmapped = unmapIpv4(address);
  if (allow.some((n) => networkContains(n, address) || networkContains(n, unmapped))) return null;
  return why;
}
