import { html } from '../../../domain/html.js';
import type { Viewer } from '../../../domain/viewer.js';
import { translator, type Lang } from '../../../presentation/messages.js';
import { words } from './errors.words.js';
import { renderPage } from '../layout.js';

export type ErrorPageKind = 'notFound' | 'csrf' | 'tooLarge' | 'failed' | 'refused' | 'invalid' | 'unavailable';

/** How the error page leads on: the way back, and whether trying the same again may help. */
export interface ErrorPageWays {
  /** The console page whose form was refused, linked beside the overview. */
  formPath?: string | null;
  /** The same page again, offered as "Try again" (a GET's own URL), for a failure that may pass. */
  retryPath?: string | null;
  /**
   * The request came with a session the console could not check (its database was unreachable): the
   * session may well be alive, so the page does not send the visitor to the login form.
   */
  sessionUnchecked?: boolean;
}

/**
 * A page for a request that went wrong, all in the visitor's language but `detail`: a message safe to show
 * (an AppError's), or for 'invalid' the field's name. 'unavailable' (the database out of reach) says so in
 * the visitor's language whatever the error's own message. The way back is the overview for a viewer,
 * the login form for a logged-out person, and none for one whose session could not be checked: "Try
 * again" is its way on.
 */
export function renderErrorPage(
  lang: Lang,
  viewer: Viewer | null,
  csrf: string,
  path: string,
  kind: ErrorPageKind,
  requestId: string,
  detail = '',
  ways: ErrorPageWays = {},
  approvalsWaiting: number | null = null,
): string {
  const t = translator(words, lang);
  const text =
    kind === 'notFound'
      ? t('notFoundText')
      : kind === 'csrf'
        ? t('csrfText')
        : kind === 'failed'
          ? t('failedText', { id: requestId })
          : kind === 'invalid'
            ? t('invalidText', { field: detail })
            : kind === 'unavailable'
              ? t('unavailableText')
              : detail;
  const { formPath = null, retryPath = null, sessionUnchecked = false } = ways;
  const retry = retryPath ? html`<p><a class="button" href="${retryPath}">${t('retry')}</a></p>\n` : '';
  const backToForm = formPath ? html`<p><a href="${formPath}">${t('backToForm')}</a></p>\n` : '';
  const back = viewer
    ? html`<p><a href="/dashboard">${t('back')}</a></p>`
    : sessionUnchecked
      ? ''
      : html`<p><a href="/dashboard">${t('backToLogin')}</a></p>`;
  const body = html`<div class="card">
<h1>${t(kind)}</h1>
<p>${text}</p>
${retry}${backToForm}${back}
</div>`;
  return renderPage({ lang, title: t(kind), viewer, csrf, path, approvalsWaiting }, body);
}
