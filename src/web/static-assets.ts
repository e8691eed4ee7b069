// The payer's pages' and the console's files (src/web/assets/, copied to dist/web/assets/ by scripts/build.mjs), read
// once per process. Each is served under a URL carrying a hash of its content, so browsers may keep it
// for a year: a changed file is a new URL, and a page never meets a stale script or style.
// The one module-level memo left in web (test/unit/no-module-state.test.ts allows it): it holds the bytes
// of files shipped with the package, the same for every gateway in the process and never changed, so
// sharing it shares nothing a gateway owns. Read on first use, not at import, so that commands which
// never serve a page never read them.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface StaticAsset {
  url: string;
  body: Buffer;
  type: string;
  cacheControl: string;
}

export interface CheckoutAssets {
  /** The rules the checkout page shares with the payment-link pages, which link it from here too. */
  payerCss: StaticAsset;
  css: StaticAsset;
  /** What checkout.js shares with the point of sale's script (money, the countdown), loaded before it. */
  commonJs: StaticAsset;
  js: StaticAsset;
  icon: StaticAsset;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';
// The icon keeps its plain URL: it is the page's declared favicon, which browsers (and the e2e test)
// look for at a stable address. It changes rarely, so a day's caching is enough.
const ONE_DAY = 'public, max-age=86400';

// Beside this module in src/ (tests, tsx) and in dist/ (the build copies the folder).
const folder = new URL('./assets/', import.meta.url);

function load(prefix: string, file: string, type: string, hashed: boolean): StaticAsset {
  const body = readFileSync(new URL(file, folder));
  if (!hashed) return { url: prefix + file, body, type, cacheControl: ONE_DAY };
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const dot = file.lastIndexOf('.');
  return { url: `${prefix}${file.slice(0, dot)}.${hash}${file.slice(dot)}`, body, type, cacheControl: IMMUTABLE };
}

let loaded: CheckoutAssets | null = null;

export function checkoutAssets(): CheckoutAssets {
  loaded ??= {
    payerCss: load('/checkout/assets/', 'payer.css', 'text/css; charset=utf-8', true),
    css: load('/checkout/assets/', 'checkout.css', 'text/css; charset=utf-8', true),
    commonJs: load('/checkout/assets/', 'payer-common.js', 'text/javascript; charset=utf-8', true),
    js: load('/checkout/assets/', 'checkout.js', 'text/javascript; charset=utf-8', true),
    icon: load('/checkout/assets/', 'icon.svg', 'image/svg+xml', false),
  };
  return loaded;
}

export interface ConsoleAssets {
  css: StaticAsset;
  js: StaticAsset;
  /** The soundbox page's own script (issue 27, section 2). */
  soundboxJs: StaticAsset;
  /** The same icon as the payer's pages', at a hashed URL of the console's own (its pages link it). */
  icon: StaticAsset;
}

let consoleLoaded: ConsoleAssets | null = null;

export function consoleAssets(): ConsoleAssets {
  consoleLoaded ??= {
    css: load('/dashboard/assets/', 'console.css', 'text/css; charset=utf-8', true),
    js: load('/dashboard/assets/', 'console.js', 'text/javascript; charset=utf-8', true),
    soundboxJs: load('/dashboard/assets/', 'soundbox.js', 'text/javascript; charset=utf-8', true),
    icon: load('/dashboard/assets/', 'icon.svg', 'image/svg+xml', true),
  };
  return consoleLoaded;
}

/** The soundbox page's script. */
export function soundboxAssets(): StaticAsset {
  return consoleAssets().soundboxJs;
}

let payLinkLoaded: StaticAsset | null = null;

/** The payment-link pages' own style sheet (/pay/{handle}); their shared sheet and icon are the checkout page's. */
export function payLinkCss(): StaticAsset {
  payLinkLoaded ??= load('/pay/assets/', 'pay-link.css', 'text/css; charset=utf-8', true);
  return payLinkLoaded;
}

export interface PosAssets {
  css: StaticAsset;
  /** The payer pages' shared script (payer-common.js), loaded before pos.js. */
  commonJs: StaticAsset;
  js: StaticAsset;
  /** The service worker's own code; served at a fixed address (pages/pos.ts), never under a hash. */
  worker: Buffer;
}

let posLoaded: PosAssets | null = null;

/** The point of sale's style, script and service worker (console pages/pos.ts). */
export function posAssets(): PosAssets {
  posLoaded ??= {
    css: load('/dashboard/assets/', 'pos.css', 'text/css; charset=utf-8', true),
    commonJs: load('/dashboard/assets/', 'payer-common.js', 'text/javascript; charset=utf-8', true),
    js: load('/dashboard/assets/', 'pos.js', 'text/javascript; charset=utf-8', true),
    worker: readFileSync(new URL('pos-sw.js', folder)),
  };
  return posLoaded;
}

export interface ReceiptAssets {
  css: StaticAsset;
  js: StaticAsset;
}

let receiptLoaded: ReceiptAssets | null = null;

/** The receipt page's print styles and its print button's script (/receipt/{token}). */
export function receiptAssets(): ReceiptAssets {
  receiptLoaded ??= {
    css: load('/receipt/assets/', 'receipt.css', 'text/css; charset=utf-8', true),
    js: load('/receipt/assets/', 'receipt.js', 'text/javascript; charset=utf-8', true),
  };
  return receiptLoaded;
}

/**
 * Reads every file now. A server does at start, so it never reads dist/ afterwards: `npm run build` may
 * put a new dist/ in place while it runs (scripts/build-steps.mjs), and its pages must keep their own files.
 */
export function loadAllAssets(): void {
  checkoutAssets();
  consoleAssets();
  payLinkCss();
  posAssets();
  receiptAssets();
}
