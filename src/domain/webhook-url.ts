import { AppError } from './errors.js';
import { formatIp, parseIp, refusalReason, type IpNetwork } from './ip-networks.js';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Checks a merchant's webhook URL when it is added and returns it in canonical form. Host names are not
 * resolved here (the answer could change by delivery time; the dispatcher checks the address it
 * connects to), but literal addresses and `localhost` that the SSRF guard would refuse are refused now,
 * so a typo shows up at once rather than as failed deliveries.
 */
export function validateWebhookUrl(text: string, allow: readonly IpNetwork[]): string {
  const fail = (why: string) => new AppError('invalid_parameter', `url ${why}`, { param: 'url' });
  if (text.length > MAX_WEBHOOK_URL_LENGTH) throw fail(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw fail('is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail('must use http or https');
  // Credentials in a URL end up in logs and listings; receivers authenticate the gateway by signature.
  if (url.username !== '' || url.password !== '') throw fail('must not contain a user name or password');
  if (url.hostname === '') throw fail('needs a host');
  const refused = literalHostRefusal(url, allow);
  if (refused !== null) throw fail(refused);
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) throw fail(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  return url.href;
}

/**
 * Why the SSRF guard would refuse `url`'s host when it is a literal address or `localhost` (a name is
 * left to the guard, which checks the address it resolves to when connecting); null when it would not.
 * Shared by webhook and mutation-feed URLs, which the guard holds to the same rule.
 */
export function literalHostRefusal(url: URL, allow: readonly IpNetwork[]): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // WHATWG URL parsing has already turned `0x7f.1` and friends into a dotted quad.
  const literal = parseIp(host) ?? (/(^|\.)localhost\.?$/i.test(host) ? parseIp('127.0.0.1') : null);
  if (literal === null) return null;
  const why = refusalReason(literal, allow);
  return why === null
    ? null
    : `points at ${formatIp(literal)}, which is ${why}; set WEBHOOK_ALLOW_NETWORKS to allow it`;
}
