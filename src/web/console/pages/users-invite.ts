// The users page's invite form: an operator invites a merchant user or a cashier of any merchant; a
// merchant's owner invites cashiers of its own merchants only (the choice of merchant is limited to them,
// and the server checks it again: domain/user-scope.ts).
import { html, type SafeHtml } from '../../../domain/html.js';
import type { Viewer } from '../../../domain/viewer.js';
import type { Lang } from '../../../presentation/messages.js';
import { translator } from '../../../presentation/messages.js';
import { words } from './users.words.js';

export interface InviteFormInput {
  lang: Lang;
  csrf: string;
  viewer: Viewer;
  /** The merchants the viewer may invite to (every merchant for an operator), by name. */
  merchants: ReadonlyArray<{ id: string; name: string }>;
  /** Invitations need SIGNUP=invite or open. */
  closed: boolean;
}

export function renderInviteForm(input: InviteFormInput): SafeHtml {
  const t = translator(words, input.lang);
  const operator = input.viewer.role === 'operator';
  const head = html`<h2>${t(operator ? 'inviteTitle' : 'inviteCashierTitle')}</h2>`;
  if (input.closed)
    return html`<section class="card">${head}<p class="muted">${t(operator ? 'inviteClosed' : 'inviteClosedOwner')}</p></section>`;
  const options = input.merchants.map((m) => html`<option value="${m.id}">${m.name}</option>`);
  // An owner of one merchant has nothing to choose; an operator may also invite someone to no merchant yet.
  const merchantField =
    !operator && input.merchants.length === 1
      ? html`<input type="hidden" name="merchant" value="${input.merchants[0]!.id}"><p>${t('cashierOf', { merchant: input.merchants[0]!.name })}</p>`
      : html`<label for="invite-merchant">${t(operator ? 'inviteMerchant' : 'merchant')}</label>
<select id="invite-merchant" name="merchant">${operator ? html`<option value="">${t('noMerchant')}</option>` : ''}${options}</select>`;
  const roleField = operator
    ? html`<label for="invite-role">${t('role')}</label>
<select id="invite-role" name="role"><option value="merchant">${t('roleMerchant')}</option><option value="cashier">${t('roleCashier')}</option></select>`
    : html`<input type="hidden" name="role" value="cashier">`;
  return html`<section class="card">${head}
<p class="muted">${t(operator ? 'inviteIntro' : 'inviteCashierIntro')}</p>
<form method="post" action="/dashboard/users/invite">
<input type="hidden" name="_csrf" value="${input.csrf}">
<label for="invite-email">${t('email')}</label>
<input id="invite-email" name="email" type="email" autocomplete="off" required maxlength="254">
${roleField}
${merchantField}
<p><button type="submit">${t(operator ? 'invite' : 'inviteCashier')}</button></p>
</form></section>`;
}
