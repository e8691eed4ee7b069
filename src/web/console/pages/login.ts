import { html, type SafeHtml } from '../../../domain/html.js';
import { translator, type Lang, type Translate } from '../../../presentation/messages.js';
import { words } from './login.words.js';
import { renderPage } from '../layout.js';
import { renderNotice, type Notice } from '../notice.js';

/** What the login form says above itself: why a login failed, or a notice the previous action left (notice.ts). */
export type LoginNotice =
  | { kind: 'failed' }
  | { kind: 'unverified' }
  | { kind: 'busy' }
  | { kind: 'throttled'; seconds: number }
  | { kind: 'expired' }
  | { kind: 'carried'; notice: Notice }
  | null;

/** What the login form says after a logout (or an account's deletion): the notice those leave. */
export const loggedOutNotice = (lang: Lang): Notice => ({ kind: 'info', text: translator(words, lang)('loggedOut') });

/** The command an operator sets a console user's password with (the form docs/cli.md uses). */
const PASSWORD_COMMAND = 'npm run -s cli -- user password you@example.com';

/**
 * What a gateway that cannot send mail (no SMTP_URL) says instead of a "Forgot your password?" link:
 * ask the operator, and the command the operator uses. The reset pages say it too.
 */
export function askOperatorForPassword(lang: Lang): SafeHtml {
  const t = translator(words, lang);
  return html`<p class="forgot-no-mail">${t('forgotNoMail')}</p>
<p class="muted">${t('operatorCommand')} <code>${PASSWORD_COMMAND}</code></p>`;
}

/** The way back to the login form, for a logged-out person's pages. */
export function backToLogin(lang: Lang): SafeHtml {
  return html`<p><a href="/dashboard">${translator(words, lang)('backToLogin')}</a></p>`;
}

/**
 * The login form. `next` is where a successful login goes (already checked to be a console path).
 * `canMail`: whether a reset link can be mailed (SMTP_URL set); without it, no "Forgot your password?" link.
 */
export function renderLogin(
  lang: Lang,
  csrf: string,
  path: string,
  next: string,
  email: string,
  notice: LoginNotice,
  signupOpen = false,
  canMail = true,
): string {
  const t = translator(words, lang);
  const message =
    notice === null ? '' : notice.kind === 'carried' ? renderNotice(notice.notice) : failureOrStatus(t, notice);
  const body = html`<div class="login card">
<h1>${t('title')}</h1>
<p class="muted">${t('intro')}${signupOpen ? '' : ` ${t('operatorMade')}`}</p>
${message}
<form method="post" action="/dashboard/login">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="next" value="${next}">
<label for="login-email">${t('email')}</label>
<input id="login-email" name="email" type="email" autocomplete="username" required maxlength="254" value="${email}">
<label for="login-password">${t('password')}</label>
<input id="login-password" name="password" type="password" autocomplete="current-password" required maxlength="200">
<button type="submit">${t('logIn')}</button>
</form>
${canMail ? html`<p><a href="/dashboard/reset">${t('forgot')}</a></p>` : askOperatorForPassword(lang)}
${signupOpen ? html`<p><a href="/dashboard/signup">${t('signUp')}</a></p>` : ''}
</div>`;
  return renderPage({ lang, title: t('title'), viewer: null, csrf, path }, body);
}

/** Why a login failed (an alert), or that the session ended (a status). */
function failureOrStatus(
  t: Translate<keyof typeof words.en>,
  notice: Exclude<LoginNotice, null | { kind: 'carried' }>,
): SafeHtml {
  if (notice.kind === 'throttled')
    return html`<p class="notice error" role="alert">${t('throttled', { seconds: notice.seconds })}</p>`;
  if (notice.kind === 'expired') return html`<p class="notice" role="status">${t('expired')}</p>`;
  return html`<p class="notice error" role="alert">${t(notice.kind)}</p>`;
}
