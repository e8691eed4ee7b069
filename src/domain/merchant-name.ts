// A merchant's name in this gateway. It is shown to payers: on the checkout page, on payment links, and
// in the subject and text of the invoice and receipt the gateway mails from the operator's MAIL_FROM. So
// it may carry no link and no address (a URL, "www.", a domain such as example.com, an e-mail address,
// an IP address): a name like "Account BLOCKED, restore at http://..." would make the gateway's own mail
// a phishing mail. The check reads the name as a mail client would show it (compatibility forms folded,
// invisible characters dropped, any full stop a dot), so spelling a link with look-alikes does not pass.
import { AppError } from './errors.js';

export const MERCHANT_NAME_MAX = 100;

export type MerchantNameProblem = 'length' | 'control' | 'link';

// Full stops that browsers and mail clients read as a domain's dot: ideographic, full-width, half-width.
const DOTS = /[\u3002\uFF0E\uFF61]/g;
// Invisible characters (zero-width space and joiners, direction marks, soft hyphen...): Unicode's Cf.
const INVISIBLE = /\p{Cf}/gu;
const CONTROL = /\p{Cc}/u;

const LINK_PATTERNS: readonly RegExp[] = [
  // A scheme: http://, hxxp://, ftp://, and the schemes that need no slashes.
  /[\p{L}][\p{L}\p{N}+.-]*:\/\//u,
  /(?:^|[^\p{L}\p{N}])(?:https?|mailto|javascript|ftp):/iu,
  /(?:^|[^\p{L}\p{N}])www\d*\./iu,
  // A domain-like token: labels joined by dots, the last one (the top-level domain) of two or more
  // letters, or an IDN's punycode. Also every e-mail address, whose domain is such a token.
  /[\p{L}\p{N}\p{M}_-]+(?:\.[\p{L}\p{N}\p{M}_-]+)*\.(?:\p{L}\p{M}*){2,}(?![\p{L}\p{N}\p{M}_-])/u,
  /[\p{L}\p{N}\p{M}_-]+(?:\.[\p{L}\p{N}\p{M}_-]+)*\.xn--[a-z0-9-]+/iu,
  // An IPv4 address.
  /(?:^|[^\p{N}.])\d{1,3}(?:\.\d{1,3}){3}(?![\p{N}])/u,
  // An e-mail address whatever its domain looks like (user@localhost, user@[10.0.0.1]).
  /[^\s@]@[^\s@]/u,
];

/** The name as a reader sees it: NFKC, no invisible characters, every full stop a plain dot. */
export function visibleForm(name: string): string {
  return name.normalize('NFKC').replace(INVISIBLE, '').replace(DOTS, '.');
}

/** Why a (trimmed) name is refused, or null when it is fine. */
export function merchantNameProblem(name: string): MerchantNameProblem | null {
  if (name.length === 0 || name.length > MERCHANT_NAME_MAX) return 'length';
  if (CONTROL.test(name)) return 'control';
  const seen = visibleForm(name);
  if (LINK_PATTERNS.some((p) => p.test(seen))) return 'link';
  return null;
}

const MESSAGES: Record<MerchantNameProblem, string> = {
  length: `name must be 1 to ${MERCHANT_NAME_MAX} characters`,
  control: 'name must not contain control characters (line breaks, tabs)',
  link: 'name must not contain a link or an address (a URL, www., a domain such as example.com, an e-mail or IP address); after a full stop, write a space ("CV. Sinar", not "CV.Sinar")',
};

/** A merchant's name as typed, trimmed; AppError invalid_parameter (param name) saying why otherwise. */
export function parseMerchantName(raw: string): string {
  const name = raw.trim();
  const problem = merchantNameProblem(name);
  if (problem !== null) throw new AppError('invalid_parameter', MESSAGES[problem], { param: 'name' });
  return name;
}

/**
 * The merchant's name as payers read it in the gateway's mail: the name its QRIS carries, which the
 * checkout page and the payer's bank app show too. A QRIS's name was never checked as the gateway's
 * name is (a real one may read "CV.SINAR"), so one that reads as a link or an address gives way to the
 * gateway's name, which was: the operator's mail never carries a link the operator did not write.
 */
export function payerMerchantName(merchant: { qrisName: string; name: string }): string {
  const qrisName = merchant.qrisName.trim();
  return merchantNameProblem(qrisName) === null ? qrisName : merchant.name;
}
