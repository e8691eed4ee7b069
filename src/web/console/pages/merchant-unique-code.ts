// The merchant page's unique-code choice (issue 37, section 3): the code that tells payers of one price
// apart is added to the price (the default) or subtracted from it, so the payer never pays more than the
// price and the merchant gives the code away instead. Operators and the merchant's owners may choose (a
// cashier never reaches the merchant pages); the post carries the console's CSRF token like every form.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { html, type SafeHtml } from '../../../domain/html.js';
import type { UniqueCodeMode } from '../../../domain/unique-codes.js';
import { merchantScope } from '../../../domain/viewer.js';
import { translator } from '../../../presentation/messages.js';
import type { Deps } from '../../../services/deps.js';
import { setUniqueCodeMode } from '../../../services/merchants/set-unique-code-mode.js';
import { Form, Params, Segment, Text, pageSchema } from '../../forms.js';
import type { ConsolePage } from '../context.js';
import { consolePage } from '../context.js';
import { redirectWithNotice } from '../notice.js';
import { words } from './merchants.words.js';

/** The section on a merchant's page. */
export function uniqueCodeSection(
  page: ConsolePage,
  merchant: { id: string; unique_code_mode?: UniqueCodeMode },
): SafeHtml {
  const t = translator(words, page.lang);
  const mode = merchant.unique_code_mode ?? 'add';
  const choice = (value: UniqueCodeMode, label: string, hint: string) =>
    html`<div class="choice"><input type="radio" id="unique-code-${value}" name="unique_code" value="${value}" aria-describedby="unique-code-${value}-hint"${mode === value ? html` checked` : ''}><label for="unique-code-${value}" class="inline">${label}</label>
<div class="muted hint" id="unique-code-${value}-hint">${hint}</div></div>`;
  return html`<section class="card" aria-labelledby="unique-code-heading"><h2 id="unique-code-heading">${t('uniqueCode')}</h2>
<p>${mode === 'add' ? t('uniqueCodeAdded') : t('uniqueCodeSubtracted')}</p>
<form method="post" action="/dashboard/merchants/${merchant.id}/unique-code">
<input type="hidden" name="_csrf" value="${page.csrf}">
<fieldset class="checks"><legend>${t('uniqueCodeChoose')}</legend>
${choice('add', t('uniqueCodeAdd'), t('uniqueCodeAddHint'))}
${choice('subtract', t('uniqueCodeSubtract'), t('uniqueCodeSubtractHint'))}
</fieldset>
<div class="actions"><button type="submit" class="secondary">${t('uniqueCodeSave')}</button></div>
</form></section>`;
}

export function registerUniqueCodeChoice(scope: FastifyInstance, deps: Deps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const schema = pageSchema({ params: Params({ id: Segment() }), body: Form({ unique_code: Text() }) });
  app.post('/merchants/:id/unique-code', { schema }, async (request, reply) => {
    const page = consolePage(request, reply);
    const mode = await setUniqueCodeMode(
      deps,
      merchantScope(page.viewer),
      request.params.id,
      request.body.unique_code ?? '',
      page.viewer.actor,
    );
    const text = translator(words, page.lang)(mode === 'add' ? 'uniqueCodeAddNotice' : 'uniqueCodeSubtractNotice');
    return redirectWithNotice(reply, `/dashboard/merchants/${encodeURIComponent(request.params.id)}`, {
      kind: 'success',
      text,
    });
  });
}
