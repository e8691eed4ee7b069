// Keeps webhook deliveries away from the gateway's own host and networks (SSRF). The check runs on the
// address a connection is actually made to: a custom `lookup` for host names, so a name that resolves
// to a public address when the endpoint is added and to 127.0.0.1 later (DNS rebinding) is still
// refused, and a direct check for IP literals, which Node connects to without any lookup.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { formatIp, parseIp, refusalReason, type IpNetwork } from '../domain/ip-networks.js';

export class SsrfRefusedError extends Error {
  readonly code = 'ERR_DESTINATION_REFUSED';
  constructor(host: string, address: string, why: string) {
    const shown = host === address ? address : `${host} (${address})`;
    super(`destination refused: ${shown} is ${why}; allow it with WEBHOOK_ALLOW_NETWORKS if intended`);
    this.name = 'SsrfRefusedError';
  }
}

/** URL host text without IPv6 brackets: `[::1]` becomes `::1`. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Throws SsrfRefusedError when `host` is an IP literal that is not permitted; names pass (see lookup). */
export function assertLiteralAllowed(host: string, allow: readonly IpNetwork[]): void {
  const address = parseIp(bareHost(host));
  if (address === null) return;
  const why = refusalReason(address, allow);
  if (why !== null) throw new SsrfRefusedError(host, formatIp(address), why);
}

type Resolver = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for http.request / net.connect that resolves the name and keeps only permitted addresses.
 * A public address among refused ones is still used (the refused ones are never tried); when none is
 * left, the connection fails with SsrfRefusedError before any socket is opened.
 */
export function guardedLookup(
  allow: readonly IpNetwork[],
  resolve: Resolver = dnsLookup as unknown as Resolver,
): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return void callback(err, '', 0);
      let refused: SsrfRefusedError | null = null;
      const permitted = addresses.filter((a) => {
        const parsed = parseIp(a.address);
        const why = parsed === null ? 'not an IP address' : refusalReason(parsed, allow);
        if (why !== null) refused ??= new SsrfRefusedError(hostname, a.address, why);
        return why === null;
      });
      if (permitted.length === 0) {
        return void callback(refused ?? new SsrfRefusedError(hostname, '(no address)', 'unresolvable'), '', 0);
      }
      // Node asks for every address (`all`) when it races IPv4 and IPv6, and for one otherwise.
      if (options.all) return void callback(null, permitted);
      callback(null, permitted[0]!.address, permitted[0]!.family);
    });
  };
}
