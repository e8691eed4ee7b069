import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html, type SafeHtml } from '../../../domain/html.js';
import { inviteUser } from '../../../services/users/invite-user.js';
import { deleteAccount } from '../../../services/users/delete-account.js';
import type { Deps } from '../../../services/deps.js';
import { listManagedUsers } from '../../../services/users/list-managed-users.js';
import { findManagedUser } from '../../../services/users/find-managed-user.js';
import { listVisibleMerchants } from '../../../services/merchants/list-visible-merchants.js';
import { mayInvite, seesUsersPage } from '../../../domain/user-scope.js';
import { renderInviteForm } from './users-invite.js';
import { setUserEnabled } from '../../../services/users/set-user-enabled.js';
import { setUserPassword } from '../../../services/users/set-user-password.js';
import { verifyPassword } from '../../../hashing/passwords.js';
import { findUser } from '../../../services/users/find-user.js';
import { Form, Params, Segment, Text, pageSchema } from '../../forms.js';
import { consolePage, type ConsoleKit } from '../context.js';
import { translator } from '../../../presentation/messages.js';
import { words } from './users.words.js';
import { formatTime } from '../../../presentation/format.js';
import { redirectWithNotice, renderNotice, takeNotice } from '../notice.js';
import { loggedOutNotice } from './login.js';

/** How the table names each role. */
const ROLE_WORDS = { operator: 'roleOperator', merchant: 'roleOwner', cashier: 'roleCashierShort' } as const;

export async function userRoutes(scope: FastifyInstance, deps: Deps, kit: ConsoleKit): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  const usersPage = async (
    request: Parameters<typeof consolePage>[0],
    reply: Parameters<typeof consolePage>[1],
    notice: SafeHtml | '' = '',
    status = 200,
  ) => {
    const page = consolePage(request, reply);
    if (!seesUsersPage(page.viewer)) throw new AppError('not_found', 'not found');
    const t = translator(words, page.lang);
    const operator = page.viewer.role === 'operator';
    const [users, merchants] = await Promise.all([
      listManagedUsers(deps, page.viewer),
      listVisibleMerchants(deps, page.viewer),
    ]);
    const shown = users.filter((u) => !u.email.endsWith('@invalid'));
    const names = new Map(merchants.map((m) => [m.id, m.name]));
    const title = t(operator ? 'users' : 'cashiers');
    const table =
      shown.length === 0
        ? html`<p class="card muted">${t('noCashiers')}</p>`
        : html`<div class="table-wrap"><table>
<thead><tr><th>${t('email')}</th><th>${t('role')}</th><th class="hide-narrow">${t('merchants')}</th><th class="hide-narrow">${t('lastLogin')}</th><th>${t('state')}</th><th></th></tr></thead>
<tbody>${shown.map(
            (
              u,
            ) => html`<tr><td data-label="${t('email')}">${u.email}</td><td data-label="${t('role')}">${t(ROLE_WORDS[u.role])}</td><td class="hide-narrow" data-label="${t('merchants')}">${u.merchant_ids.map((id) => names.get(id) ?? id).join(', ') || t('none')}</td>
<td class="hide-narrow" data-label="${t('lastLogin')}">${u.last_login_at ? formatTime(Date.parse(u.last_login_at), page.lang) : t('never')}</td>
<td data-label="${t('state')}"><span class="badge ${u.disabled ? 'disabled' : 'active'}">${u.disabled ? t('disabled') : t('active')}</span></td>
<td data-label="">${
              u.id === page.viewer.userId
                ? ''
                : html`<form method="post" action="/dashboard/users/${u.id}/${u.disabled ? 'enable' : 'disable'}" class="inline"${u.disabled ? '' : html` data-confirm="${t('confirmDisable')}"`}>
<input type="hidden" name="_csrf" value="${page.csrf}"><button type="submit" class="secondary" aria-label="${t(u.disabled ? 'enableWho' : 'disableWho', { email: u.email })}">${u.disabled ? t('enable') : t('disable')}</button></form>`
            }</td></tr>`,
          )}</tbody></table></div>`;
    const form = renderInviteForm({
      lang: page.lang,
      csrf: page.csrf,
      viewer: page.viewer,
      merchants,
      closed: deps.config.signup === 'closed',
    });
    return page.send(title, 'users', html`<h1>${title}</h1>${notice}${table}${form}`, status);
  };

  app.get('/users', { schema: pageSchema({}) }, (request, reply) =>
    usersPage(request, reply, renderNotice(takeNotice(request, reply))),
  );

  app.post(
    '/users/invite',
    { schema: pageSchema({ body: Form({ email: Text(), merchant: Text(), role: Text() }) }) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      if (!seesUsersPage(page.viewer)) throw new AppError('not_found', 'not found');
      const t = translator(words, page.lang);
      const merchant = (request.body.merchant ?? '').trim();
      const merchantIds = merchant ? [merchant] : [];
      // An owner's form makes cashiers whatever it says; an operator's makes a merchant user unless told.
      const role = request.body.role === 'cashier' || page.viewer.role !== 'operator' ? 'cashier' : 'merchant';
      // Another merchant (or none) named by an owner is a 404, as another merchant's objects are.
      if (!mayInvite(page.viewer, role, merchantIds)) throw new AppError('not_found', 'not found');
      try {
        const made = await inviteUser(
          deps,
          kit.mail,
          { email: request.body.email ?? '', merchantIds, role },
          page.viewer.actor,
        );
        // The link is shown in this answer only (it is a credential until used).
        const notice = html`<div class="notice success" role="status"><p>${t(role === 'cashier' ? 'invitedCashier' : 'invited', { email: made.email })}</p><p>${t(made.mailed ? 'inviteLinkMailed' : 'inviteLink')}</p><p class="secret" id="invite-link">${made.link}</p></div>`;
        return usersPage(request, reply, notice, 201);
      } catch (err) {
        if (!(err instanceof AppError) || err.code === 'internal_error' || err.code === 'service_unavailable')
          throw err;
        return usersPage(request, reply, html`<p class="notice error" role="alert">${err.message}</p>`, 400);
      }
    },
  );

  for (const action of ['disable', 'enable'] as const) {
    app.post(
      `/users/:id/${action}`,
      { schema: pageSchema({ params: Params({ id: Segment() }), body: Form({}) }) },
      async (request, reply) => {
        const page = consolePage(request, reply);
        // Only a user the viewer manages: an operator any other user, an owner its own merchants' cashiers.
        const user = await findManagedUser(deps, page.viewer, request.params.id);
        await setUserEnabled(deps, user.id, action === 'enable', page.viewer.actor);
        return redirectWithNotice(reply, '/dashboard/users', {
          kind: 'success',
          text: translator(words, page.lang)('changed'),
        });
      },
    );
  }

  // --- one's own account ---
  const accountPage = (
    request: Parameters<typeof consolePage>[0],
    reply: Parameters<typeof consolePage>[1],
    notice: ReturnType<typeof html> | '' = '',
    status = 200,
  ) => {
    const page = consolePage(request, reply);
    const t = translator(words, page.lang);
    const body = html`<h1>${t('account')}</h1>${notice}
<section class="card"><h2>${t('changePassword')}</h2>
<form method="post" action="/dashboard/account/password">
<input type="hidden" name="_csrf" value="${page.csrf}">
<label for="account-current">${t('currentPassword')}</label>
<input id="account-current" name="current" type="password" autocomplete="current-password" required maxlength="200">
<label for="account-new">${t('newPassword')}</label>
<input id="account-new" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="200">
<p><button type="submit">${t('save')}</button></p>
</form></section>
${
  page.viewer.role === 'merchant'
    ? html`<section class="card"><h2>${t('deleteTitle')}</h2><p>${t('deleteIntro')}</p>
<form method="post" action="/dashboard/account/delete" data-confirm="${t('confirmDelete')}">
<input type="hidden" name="_csrf" value="${page.csrf}">
<label for="delete-password">${t('passwordAgain')}</label>
<input id="delete-password" name="password" type="password" autocomplete="current-password" required maxlength="200">
<p><button type="submit" class="danger">${t('deleteButton')}</button></p>
</form></section>`
    : ''
}`;
    return page.send(t('account'), 'account', body, status);
  };

  app.get('/account', { schema: pageSchema({}) }, (request, reply) => accountPage(request, reply));

  app.post(
    '/account/password',
    { schema: pageSchema({ body: Form({ current: Text(), password: Text() }) }) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      const t = translator(words, page.lang);
      const user = await findUser(deps, page.viewer.userId);
      if (!(await verifyPassword(request.body.current ?? '', user.password_hash))) {
        return accountPage(request, reply, html`<p class="notice error" role="alert">${t('wrongPassword')}</p>`, 400);
      }
      try {
        await setUserPassword(deps, user.id, request.body.password ?? '', page.viewer.actor, page.viewer.sessionKey);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'invalid_parameter') throw err;
        return accountPage(request, reply, html`<p class="notice error" role="alert">${err.message}</p>`, 400);
      }
      return accountPage(request, reply, html`<p class="notice success" role="status">${t('passwordChanged')}</p>`);
    },
  );

  app.post('/account/delete', { schema: pageSchema({ body: Form({ password: Text() }) }) }, async (request, reply) => {
    const page = consolePage(request, reply);
    try {
      await deleteAccount(deps, page.viewer, request.body.password ?? '');
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'invalid_parameter') throw err;
      return accountPage(request, reply, html`<p class="notice error" role="alert">${err.message}</p>`, 400);
    }
    reply.clearCookie('qg_session', { path: '/dashboard' });
    return redirectWithNotice(reply, '/dashboard', loggedOutNotice(page.lang));
  });
}
