import { html, type SafeHtml } from '../../domain/html.js';
import { cashierMay, type Viewer } from '../../domain/viewer.js';
import { pageFrame } from '../page-frame.js';
import { consoleAssets } from '../static-assets.js';
import { LANGS, translator, type Lang } from '../../presentation/messages.js';
import { words } from './layout.words.js';

/** The console's sections, in the navigation's order. */
export type Section =
  | 'overview'
  | 'pos'
  | 'transactions'
  | 'payments'
  | 'reports'
  | 'merchants'
  | 'links'
  | 'keys'
  | 'sources'
  | 'webhooks'
  | 'soundbox'
  | 'notifications'
  | 'approvals'
  | 'users'
  | 'audit'
  | 'account';

const SECTIONS: ReadonlyArray<{ key: Section; path: string; operatorOnly: boolean }> = [
  { key: 'overview', path: '/dashboard', operatorOnly: false },
  { key: 'pos', path: '/dashboard/pos', operatorOnly: false },
  { key: 'transactions', path: '/dashboard/transactions', operatorOnly: false },
  { key: 'payments', path: '/dashboard/payments', operatorOnly: false },
  { key: 'reports', path: '/dashboard/reports', operatorOnly: false },
  { key: 'merchants', path: '/dashboard/merchants', operatorOnly: false },
  { key: 'links', path: '/dashboard/links', operatorOnly: false },
  { key: 'keys', path: '/dashboard/keys', operatorOnly: false },
  { key: 'sources', path: '/dashboard/sources', operatorOnly: false },
  { key: 'webhooks', path: '/dashboard/webhooks', operatorOnly: false },
  { key: 'soundbox', path: '/dashboard/soundbox', operatorOnly: false },
  { key: 'notifications', path: '/dashboard/notifications', operatorOnly: false },
  { key: 'approvals', path: '/dashboard/approvals', operatorOnly: true },
  { key: 'users', path: '/dashboard/users', operatorOnly: true },
  { key: 'audit', path: '/dashboard/audit', operatorOnly: true },
];

/** The sections a viewer's navigation lists: a cashier's are the ones it may open (domain/viewer.ts). */
function shownTo(section: { key: Section; operatorOnly: boolean }, viewer: Viewer): boolean {
  if (viewer.role === 'cashier') return section.key !== 'overview' && cashierMay(section.key);
  // An operator sells for no merchant of its own and stands at no counter; it may still open the point of
  // sale and the soundbox by their addresses (the navigation would not fit one row on a desktop).
  if (section.key === 'pos' || section.key === 'soundbox') return viewer.role !== 'operator';
  // A merchant's owner manages its cashiers there (an operator's page lists every user).
  if (section.key === 'users') return true;
  return !section.operatorOnly || viewer.role === 'operator';
}

export interface Frame {
  lang: Lang;
  title: string;
  /** Null on the login page. */
  viewer: Viewer | null;
  /** The CSRF token for the logout form (and any form of the page). */
  csrf: string;
  /** The page's own path and query, for the language switch to come back to. */
  path: string;
  active?: Section;
  /** What a page adds to the head (the point of sale: its manifest, style and script). */
  head?: SafeHtml;
  /**
   * How many merchants wait in the approval queue, shown beside Approvals; null (or absent) leaves
   * Approvals out of the navigation (not an operator, or LIVE_KEYS=auto with nobody waiting).
   */
  approvalsWaiting?: number | null;
}

/** A whole console page around `body`. */
export function renderPage(frame: Frame, body: SafeHtml): string {
  const t = translator(words, frame.lang);
  const assets = consoleAssets();
  const { viewer } = frame;
  const waiting = frame.approvalsWaiting ?? null;
  const links = viewer
    ? SECTIONS.filter((s) => shownTo(s, viewer) && (s.key !== 'approvals' || waiting !== null)).map(
        (s) =>
          html`<a href="${s.path}"${frame.active === s.key ? html` aria-current="page"` : ''}>${
            s.key === 'approvals'
              ? t('approvalsCount', { count: waiting ?? 0 })
              : t(s.key === 'users' && viewer.role === 'merchant' ? 'cashiers' : s.key)
          }</a>`,
      )
    : [];
  const switcher = html`<span class="lang" aria-label="${t('language')}">${LANGS.map(
    (l) =>
      html`<a href="/dashboard/lang/${l}?back=${encodeURIComponent(frame.path)}" hreflang="${l}" lang="${l}"${l === frame.lang ? html` aria-current="true"` : ''}>${translator(words, l)('languageName')}</a>`,
  )}</span>`;
  const account = viewer
    ? html`<a href="/dashboard/account" title="${t('account')}">${viewer.email}${viewer.role === 'operator' ? html` (${t('operator')})` : ''}</a>
<form method="post" action="/dashboard/logout"><input type="hidden" name="_csrf" value="${frame.csrf}"><button type="submit" class="link">${t('logOut')}</button></form>`
    : '';
  // The same links twice, one shown by width (console.css): a desktop keeps its row of sections under
  // the header; a phone gets one header row with a Menu disclosure holding the sections and the account.
  // A <details> opens without any script and by keyboard; console.js only adds closing it with Escape.
  const wideNav = viewer ? html`<nav class="main wide-only" aria-label="${t('sections')}">${links}</nav>` : '';
  const menu = viewer
    ? html`<span class="account wide-only">${account}</span>
<details class="menu narrow-only"><summary>${t('menu')}</summary><div class="menu-panel"><nav aria-label="${t('sections')}">${links}</nav><div class="account">${account}</div></div></details>`
    : '';
  return pageFrame({
    lang: frame.lang,
    title: `${frame.title} · qris-gateway`,
    stylesheets: [assets.css.url],
    icon: assets.icon.url,
    scripts: [assets.js.url],
    head: frame.head ?? null,
    body: html`<header class="top"><a class="brand" href="/dashboard">qris-gateway</a>${switcher}${menu}</header>
${wideNav}
<main id="content">
${body}
</main>`,
  });
}
