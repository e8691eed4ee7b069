// Which proxies in front of the gateway may say who the client is (TRUST_PROXY). Every per-address limit
// (logins, sign-ups, resets, payment links, checkout streams) and the audit log read the client's address
// from this, so a wrong reading lets clients choose their address. X-Forwarded-For is read from the right:
// each proxy appends the address it was connected from (nginx's $proxy_add_x_forwarded_for), so only the
// entries our own proxies appended can be believed, and whatever a client wrote stands to their left.
import { networkContains, parseIp, parseNetworkList, unmapIpv4, type IpNetwork } from './ip-networks.js';

/**
 * `hops`: that many proxies stand in front, one behind the other (0: none; the socket's peer is the
 * client). `networks`: the proxies' own addresses; every hop from one of them is believed, the first
 * other address is the client.
 */
export type ProxyTrust = { hops: number } | { networks: IpNetwork[] };

export const MAX_PROXY_HOPS = 10;

const HOW =
  "false, true (one proxy), a number of proxy hops (1, 2, ...) or the proxies' addresses or CIDRs, comma-separated";

/**
 * Reads TRUST_PROXY. `true` (and 1, yes, on) is one hop, never "believe the whole header": a client
 * could otherwise put any address it likes at the header's left end.
 */
export function parseProxyTrust(raw: string | undefined): ProxyTrust {
  const text = (raw ?? '').trim();
  if (text === '' || /^(false|no|off)$/i.test(text)) return { hops: 0 };
  if (/^(true|yes|on)$/i.test(text)) return { hops: 1 };
  if (/^[0-9]+$/.test(text)) {
    const hops = Number(text);
    if (!/^(0|[1-9][0-9]*)$/.test(text) || hops > MAX_PROXY_HOPS) {
      throw new Error(`TRUST_PROXY must be ${HOW}; a hop count is 0 to ${MAX_PROXY_HOPS}, got ${JSON.stringify(raw)}`);
    }
    return { hops };
  }
  try {
    return { networks: parseNetworkList(text) };
  } catch (err) {
    throw new Error(`TRUST_PROXY must be ${HOW}, got ${JSON.stringify(raw)}: ${(err as Error).message}`);
  }
}

/**
 * Fastify's `trustProxy` for this setting: false (trust nobody) or a function of (address, hop), where
 * hop 0 is the socket's peer and hop 1 the rightmost X-Forwarded-For entry. A plain number is not handed
 * to Fastify: Fastify 5 refuses hop counts (it trusts nobody then), so the count is a function here.
 */
export function proxyTrustFunction(trust: ProxyTrust): false | ((address: string, hop: number) => boolean) {
  if ('hops' in trust) {
    const { hops } = trust;
    return hops === 0 ? false : (_address, hop) => hop < hops;
  }
  const { networks } = trust;
  if (networks.length === 0) return false;
  return (address) => {
    const parsed = parseIp(address);
    if (parsed === null) return false;
    const unmapped = unmapIpv4(parsed);
    return networks.some((n) => networkContains(n, parsed) || networkContains(n, unmapped));
  };
}
