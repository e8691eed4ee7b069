// The sources page's parts for a source that reads a phone's notifications: the "Connect a phone" card shown
// once when one is added (the token and secret are in that answer only), and the list of notifications a
// source received with what each became.
import { html, type SafeHtml } from '../../../domain/html.js';
import { formatTime } from '../../../presentation/format.js';
import { translator, type Lang } from '../../../presentation/messages.js';
import { reasonText } from '../../../presentation/shared-texts.js';
import type { NotificationView } from '../../../services/sources/list-source-notifications.js';
import { words } from './phone-card.words.js';

/** The template SMS to URL Forwarder fills in (its placeholders); the fields the phone kind reads. */
const FORWARDER_TEMPLATE = '{"from":"%from%","text":"%text%","timestamp":"%sentStamp%"}';
/** What an automation app's HTTP request sends; the capitals are its own variables. */
const AUTOMATION_TEMPLATE = '{"title":"NOTIFICATION TITLE","text":"NOTIFICATION TEXT"}';

export function connectPhoneCard(lang: Lang, added: { url: string; token: string; secret: string }): SafeHtml {
  const t = translator(words, lang);
  const withToken = `${added.url}?token=${encodeURIComponent(added.token)}`;
  return html`<section class="card connect-phone" aria-labelledby="connect-phone-title">
<h2 id="connect-phone-title">${t('connectTitle')}</h2>
<p>${t('once')}</p>
<dl class="fields">
<dt>${t('url')}</dt><dd class="mono secret" id="phone-url">${added.url}</dd>
<dt>${t('token')}</dt><dd class="mono secret" id="phone-token">${added.token}</dd>
<dt>${t('secret')}</dt><dd class="mono secret" id="phone-secret">${added.secret}</dd>
<dt>${t('urlWithToken')}</dt><dd class="mono secret" id="phone-url-token">${withToken}</dd>
</dl>
<p class="notice error" role="note">${t('tokenWarning')}</p>
<h3>${t('forwarderTitle')}</h3>
<ol>
<li>${t('forwarder1')}</li>
<li>${t('forwarder2')}<pre class="mono">${FORWARDER_TEMPLATE}</pre></li>
<li>${t('forwarder3')}</li>
</ol>
<h3>${t('automationTitle')}</h3>
<ol>
<li>${t('automation1')}</li>
<li>${t('automation2')}</li>
<li>${t('automation3')}<pre class="mono">${AUTOMATION_TEMPLATE}</pre></li>
</ol>
<h3>${t('testTitle')}</h3>
<p>${t('test')}</p>
</section>`;
}

const IGNORED = ['unknown_app', 'promotion', 'outgoing', 'withdrawal', 'unreadable'] as const;

export function notificationsList(lang: Lang, sourceId: string, rows: readonly NotificationView[]): SafeHtml {
  const t = translator(words, lang);
  const became = (n: NotificationView): string => {
    const outcome = t(`outcome_${n.outcome}`);
    if (n.reason === null) return outcome;
    const why =
      n.outcome === 'ignored' && (IGNORED as readonly string[]).includes(n.reason)
        ? t(`ignored_${n.reason as (typeof IGNORED)[number]}`)
        : reasonText(n.reason, lang);
    return `${outcome}: ${why}`;
  };
  return html`<h3 id="notifications-${sourceId}">${t('notificationsTitle')}</h3>
${
  rows.length === 0
    ? html`<p class="muted">${t('noNotifications')}</p>`
    : html`<div class="table-wrap"><table aria-labelledby="notifications-${sourceId}">
<thead><tr><th>${t('when')}</th><th>${t('app')}</th><th>${t('text')}</th><th>${t('became')}</th></tr></thead>
<tbody>${rows.map(
        (
          n,
        ) => html`<tr class="outcome-${n.outcome}"><td data-label="${t('when')}">${formatTime(Date.parse(n.received_at), lang)}</td><td data-label="${t('app')}">${n.app ?? ''}</td>
<td data-label="${t('text')}">${n.title ? html`<strong>${n.title}</strong> ` : ''}${n.text ?? ''}</td><td data-label="${t('became')}">${became(n)}</td></tr>`,
      )}</tbody></table></div>`
}`;
}
