// The delivery log as the console shows it, for every queue that keeps one (an endpoint's deliveries,
// a channel's alerts): a card per job with its state and all its attempts, then the pager. The page
// says what is its own: the heading of a job, what stands before its time, and its attempts' extras.
import { html, type HtmlValue, type SafeHtml } from '../../domain/html.js';
import type { Translate } from '../../presentation/messages.js';

type LogWord =
  | 'deliveries'
  | 'noDeliveries'
  | 'attempts'
  | 'noAttempts'
  | 'nextAttempt'
  | 'statusCode'
  | 'duration'
  | 'noResponse'
  | 'newest'
  | 'older'
  | 'dPending'
  | 'dSucceeded'
  | 'dFailed';

interface LoggedJob {
  id: string;
  status: 'pending' | 'succeeded' | 'failed';
  created_at: number;
  next_attempt_at: number;
}

interface LoggedAttempt {
  attempted_at: number;
  duration_ms: number;
  succeeded: number;
  status_code: number | null;
  error: string | null;
}

export interface LogView<E extends LoggedJob & { attemptLog: LoggedAttempt[] }> {
  t: Translate<LogWord>;
  when: (ms: number) => string;
  /** The page's own address (its pager's links) and where the page started (null: the newest). */
  self: string;
  cursor: string | null;
  next: string | null;
  /** The prefix of each card's heading id. */
  anchor: string;
  heading(entry: E): HtmlValue;
  /** What stands before the job's time on its second line. */
  lead?(entry: E): HtmlValue;
  /** An attempt's error as shown. */
  errorText?(error: string): string;
  /** What follows an attempt's line (a receiver's answer). */
  extra?(attempt: E['attemptLog'][number]): HtmlValue;
}

function jobStateWord(t: Translate<LogWord>, status: LoggedJob['status']): string {
  return t(status === 'pending' ? 'dPending' : status === 'succeeded' ? 'dSucceeded' : 'dFailed');
}

export function renderDeliveryLog<E extends LoggedJob & { attemptLog: LoggedAttempt[] }>(
  entries: E[],
  v: LogView<E>,
): SafeHtml {
  const { t, when } = v;
  const badge = (a: LoggedAttempt) =>
    a.status_code === null
      ? a.succeeded === 1
        ? t('dSucceeded')
        : t('noResponse')
      : t('statusCode', { code: a.status_code });
  return html`<h2>${t('deliveries')}</h2>
${
  entries.length === 0
    ? html`<p class="card muted">${t('noDeliveries')}</p>`
    : entries.map(
        (d) => html`<section class="card delivery" aria-labelledby="${v.anchor}-${d.id}">
<h3 id="${v.anchor}-${d.id}">${v.heading(d)} <span class="badge ${d.status}">${jobStateWord(t, d.status)}</span></h3>
<p class="muted">${v.lead?.(d)}${when(d.created_at)}${d.status === 'pending' ? html` · ${t('nextAttempt', { time: when(d.next_attempt_at) })}` : ''}</p>
<h4>${t('attempts')}</h4>
${
  d.attemptLog.length === 0
    ? html`<p class="muted">${t('noAttempts')}</p>`
    : html`<ol class="timeline">${d.attemptLog.map(
        (a) => html`<li><span class="badge ${a.succeeded === 1 ? 'succeeded' : 'failed'}">${badge(a)}</span>
${when(a.attempted_at)} · ${t('duration', { ms: a.duration_ms })}${
          a.error === null
            ? ''
            : html`<br><span class="error-text">${v.errorText ? v.errorText(a.error) : a.error}</span>`
        }${v.extra?.(a)}</li>`,
      )}</ol>`
}
</section>`,
      )
}
<nav class="pager" aria-label="${t('deliveries')}">
${v.cursor !== null ? html`<a href="${v.self}">${t('newest')}</a>` : ''}
${v.next !== null ? html`<a href="${v.self}?before=${v.next}">${t('older')}</a>` : ''}
</nav>`;
}
