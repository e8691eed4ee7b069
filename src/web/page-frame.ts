// The one HTML frame of every page the gateway serves (checkout, payment links, receipts, the console and
// the point of sale's offline page): the doctype, the language, the viewport, the referrer policy, the
// stylesheets, the icon and the deferred scripts. A page gives only what differs; the head every page
// needs is written once, so a rule for all of them (a meta tag, a policy) is one edit here.
import { html, type SafeHtml } from '../domain/html.js';

export interface PageFrame {
  lang: string;
  title: string;
  /** Stylesheet URLs, in cascade order. */
  stylesheets: readonly string[];
  /** Script URLs, loaded with `defer`. */
  scripts?: readonly string[];
  icon?: string;
  /** A page for one payer (a checkout, a receipt): kept out of search engines, and no URL leaks as a referrer. */
  payerPage?: boolean;
  /** Extra head elements (a manifest link, a meta refresh). */
  head?: SafeHtml | null;
  /** The body element's class. */
  bodyClass?: string;
  body: SafeHtml;
}

export function pageFrame(page: PageFrame): string {
  // A payer's page carries a secret-ish URL (a transaction or receipt id): none of it goes to another site.
  const privacy = page.payerPage
    ? html`
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">`
    : html`
<meta name="referrer" content="same-origin">`;
  const styles = page.stylesheets.map(
    (href) => html`
<link rel="stylesheet" href="${href}">`,
  );
  const icon = page.icon
    ? html`
<link rel="icon" type="image/svg+xml" href="${page.icon}">`
    : '';
  const scripts = (page.scripts ?? []).map(
    (src) => html`
<script src="${src}" defer></script>`,
  );
  const bodyTag = page.bodyClass ? html`<body class="${page.bodyClass}">` : html`<body>`;
  return html`<!doctype html>
<html lang="${page.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${privacy}
<title>${page.title}</title>${styles}${icon}${scripts}${
    page.head
      ? html`
${page.head}`
      : ''
  }
</head>
${bodyTag}
${page.body}
</body>
</html>`.toString();
}
