import { html } from '../../../domain/html.js';
import type { Viewer } from '../../../domain/viewer.js';
import { translator, type Lang } from '../../../presentation/messages.js';
import { words } from './errors.words.js';
import { renderPage } from '../layout.js';

export type ErrorPageKind = 'notFound' | 'csrf' | 'tooLarge' | 'failed' | 'refused' | 'invalid';

/**
 * A page for a request that went wrong; `detail` is a message safe to show (an AppError's), or for 'invalid'
 * the field's name; `formPath`, when set, is the console page whose form was refused, linked beside the overview
 * (the login form, for a logged-out person, who has no overview).
 */
export function renderErrorPage(
  lang: Lang,
  viewer: Viewer | null,
  csrf: string,
  path: string,
  kind: ErrorPageKind,
  requestId: string,
  detail = '',
  formPath: string | null = null,
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
            : detail;
  const backToForm = formPath ? html`<p><a href="${formPath}">${t('backToForm')}</a></p>\n` : '';
  const body = html`<div class="card">
<h1>${t(kind)}</h1>
<p>${text}</p>
${backToForm}<p><a href="/dashboard">${viewer ? t('back') : t('backToLogin')}</a></p>
</div>`;
  return renderPage({ lang, title: t(kind), viewer, csrf, path, approvalsWaiting }, body);
}
