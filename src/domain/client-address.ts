import { formatIp, parseIp, unmapIpv4 } from './ip-networks.js';

/**
 * The key a client's address is counted under for per-client limits. IPv4 (and IPv4 written as IPv6,
 * `::ffff:a.b.c.d`) counts per address. An IPv6 host is usually handed a whole /64 and may use any
 * address in it, so per-address limits would not hold it: IPv6 counts per /64. Anything unparsable
 * (there should be nothing) counts under its own text.
 */
export function clientAddressKey(ip: string): string {
  const parsed = parseIp(ip);
  if (!parsed) return ip;
  const address = unmapIpv4(parsed);
  if (address.family === 4) return formatIp(address);
  return `${formatIp({ family: 6, value: (address.value >> 64n) << 64n })}/64`;
}
