import { html, type SafeHtml } from '../../domain/html.js';
import { mayOpen, type Viewer } from '../../domain/viewer.js';
import type { Lang } from '../../presentation/messages.js';
import { noLiveSourceText } from '../../presentation/shared-texts.js';

/**
 * The plain warning that nothing will mark a live payment of this merchant paid (it has no enabled live
 * payment source), with the link to add one for whoever may open the sources page.
 */
export function noLiveSourceNotice(viewer: Viewer, lang: Lang, merchant: { id: string; name: string }): SafeHtml {
  const link = mayOpen(viewer, '/dashboard/sources')
    ? html` <a href="/dashboard/sources">${noLiveSourceText('add', lang)}</a>`
    : '';
  return html`<p class="notice error no-live-source" role="note" data-merchant="${merchant.id}">${noLiveSourceText('sentence', lang, { merchant: merchant.name })}${link}</p>`;
}
