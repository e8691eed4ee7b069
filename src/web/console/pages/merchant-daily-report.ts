// The merchant page's daily report e-mail switch (issue 28, section 3): its owners get yesterday's report
// after midnight WIB when it is on. Operators and the merchant's owners may switch it (a cashier never
// reaches the merchant pages); a post carries the console's CSRF token like every form.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { html, type SafeHtml } from '../../../domain/html.js';
import { merchantScope } from '../../../domain/viewer.js';
import { translator } from '../../../presentation/messages.js';
import type { Deps } from '../../../services/deps.js';
import { setDailyReportMail } from '../../../services/reports/set-daily-report-email.js';
import { Form, Params, Segment, Text, pageSchema } from '../../forms.js';
import type { ConsolePage } from '../context.js';
import { consolePage } from '../context.js';
import { redirectWithNotice } from '../notice.js';
import { words } from './merchants.words.js';

/** The section on a merchant's page. */
export function dailyReportSection(page: ConsolePage, merchant: { id: string; daily_report_email?: number }): SafeHtml {
  const t = translator(words, page.lang);
  const on = merchant.daily_report_email === 1;
  return html`<section class="card" aria-labelledby="daily-report-heading"><h2 id="daily-report-heading">${t('dailyReport')}</h2>
<p>${on ? t('dailyReportOn') : t('dailyReportOff')} <a href="/dashboard/reports?merchant=${merchant.id}">${t('dailyReportLink')}</a></p>
<form method="post" action="/dashboard/merchants/${merchant.id}/daily-report" class="actions">
<input type="hidden" name="_csrf" value="${page.csrf}">
<input type="hidden" name="daily_report" value="${on ? 'off' : 'on'}">
<button type="submit" class="secondary">${on ? t('dailyReportStop') : t('dailyReportStart')}</button>
</form></section>`;
}

export function registerDailyReportSwitch(scope: FastifyInstance, deps: Deps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const schema = pageSchema({ params: Params({ id: Segment() }), body: Form({ daily_report: Text() }) });
  app.post('/merchants/:id/daily-report', { schema }, async (request, reply) => {
    const page = consolePage(request, reply);
    const on = request.body.daily_report === 'on';
    await setDailyReportMail(deps, merchantScope(page.viewer), request.params.id, on, page.viewer.actor);
    const text = translator(words, page.lang)(on ? 'dailyReportOnNotice' : 'dailyReportOffNotice');
    return redirectWithNotice(reply, `/dashboard/merchants/${encodeURIComponent(request.params.id)}`, {
      kind: 'success',
      text,
    });
  });
}
