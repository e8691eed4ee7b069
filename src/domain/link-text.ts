// Text that payers read in the gateway's own mail, sent from the operator's MAIL_FROM: a merchant's name
// (merchant-name.ts), a refund's reason and reference (refund.ts). Such text may carry no link and no
// address (a URL, "www.", a domain such as example.com, an e-mail address, an IP address): "Account
// BLOCKED, restore at http://..." would make the gateway's own mail a phishing mail. The check reads the
// text as a mail client would show it (compatibility forms folded, invisible characters dropped, any full
// stop a dot), so spelling a link with look-alikes does not pass.
//
// Numbers written the Indonesian way pass: "Rp1.500", "10.000", "1.250.000,00" (a domain's last label is
// letters). Four groups of digits joined by dots read as an IP address, so an amount of a billion rupiah
// or more written with dots ("1.000.000.000") is refused too; written "Rp 1 miliar" or without dots it passes.

// Full stops that browsers and mail clients read as a domain's dot: ideographic, full-width, half-width.
const DOTS = /[\u3002\uFF0E\uFF61]/g;
// Invisible characters (zero-width space and joiners, direction marks, soft hyphen...): Unicode's Cf.
const INVISIBLE = /\p{Cf}/gu;

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

/** What a refusal says is not allowed, for the messages of every text checked here. */
export const LINK_OR_ADDRESS =
  'a link or an address (a URL, www., a domain such as example.com, an e-mail or IP address)';

/** The text as a reader sees it: NFKC, no invisible characters, every full stop a plain dot. */
function visibleForm(text: string): string {
  return text.normalize('NFKC').replace(INVISIBLE, '').replace(DOTS, '.');
}

/** Whether the text, as a reader sees it, carries a link or an address anywhere. */
export function readsAsLinkOrAddress(text: string): boolean {
  const seen = visibleForm(text);
  return LINK_PATTERNS.some((p) => p.test(seen));
}
