// The pages a logged-out person reaches: sign-up (SIGNUP=open), the links mailed to them (confirm an
// address, reset a password, accept an invitation) and the request for a reset link.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html, type SafeHtml } from '../../../domain/html.js';
import { acceptInvite } from '../../../services/users/accept-invite.js';
import { linkIsLive } from '../../../services/users/link-is-live.js';
import { requestPasswordReset } from '../../../services/users/request-password-reset.js';
import { resetPassword } from '../../../services/users/reset-password.js';
import { verifyEmail } from '../../../services/users/verify-email.js';
import type { Deps } from '../../../services/deps.js';
import { signUp } from '../../../services/users/sign-up.js';
import { statusFor } from '../../../wire/error-status.js';
import { Form, Query, Text, pageSchema } from '../../forms.js';
import type { ConsoleKit } from '../context.js';
import { translator, type Lang, type Translate } from '../../../presentation/messages.js';
import { words } from './account-links.words.js';
import { renderPage } from '../layout.js';
import { askOperatorForPassword, backToLogin } from './login.js';

type Key = Parameters<Translate<keyof typeof words.en>>[0];

function send(
  reply: FastifyReply,
  lang: Lang,
  csrf: string,
  path: string,
  title: string,
  body: SafeHtml,
  status = 200,
): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(renderPage({ lang, title, viewer: null, csrf, path }, html`<div class="login card">${body}</div>`));
}

/**
 * A refusal the person can act on (bad input, too many requests, too many password hashes at once),
 * shown above the form again. Sign-up and reset mails go out after the answer, so none is "mail down".
 */
function problem(err: unknown, t: Translate<Key>): { status: number; message: string } | null {
  if (!(err instanceof AppError)) return null;
  if (err.code === 'rate_limited') return { status: 429, message: t('tooMany') };
  if (err.code === 'service_unavailable') return { status: 503, message: t('busy') };
  if (err.code === 'invalid_parameter' || err.code === 'invalid_email') return { status: 400, message: err.message };
  return null;
}

/** Why a link's form was refused, shown above it again (the link itself still works). */
function linkProblem(err: unknown, t: Translate<Key>): { status: number; message: string } | null {
  if (!(err instanceof AppError)) return null;
  if (err.code === 'invalid_parameter' || err.code === 'user_exists') return { status: 400, message: err.message };
  if (err.code === 'login_failed') return { status: statusFor('login_failed'), message: t('wrongPassword') };
  if (err.code === 'login_throttled')
    return { status: statusFor('login_throttled'), message: t('throttled', { seconds: err.retryAfter ?? 1 }) };
  if (err.code === 'service_unavailable') return { status: 503, message: t('busy') };
  return null;
}

const alert = (message: string | null) => (message ? html`<p class="notice error" role="alert">${message}</p>` : '');

export async function accountLinkRoutes(scope: FastifyInstance, deps: Deps, kit: ConsoleKit): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  // Reached logged out: the console's login check lets these through.
  const open = { consolePublic: true };
  const client = (request: FastifyRequest) => ({
    clientAddress: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
  });

  // --- sign-up ---
  const signUpForm = (
    t: Translate<Key>,
    csrf: string,
    email: string,
    message: string | null,
  ) => html`<h1>${t('signUp')}</h1>
<p class="muted">${t('signUpIntro')}</p>
${alert(message)}
<form method="post" action="/dashboard/signup">
<input type="hidden" name="_csrf" value="${csrf}">
<label for="signup-email">${t('email')}</label>
<input id="signup-email" name="email" type="email" autocomplete="email" required maxlength="254" value="${email}">
<label for="signup-password">${t('password')}</label>
<input id="signup-password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="200">
<p class="muted">${t('passwordHint')}</p>
<button type="submit">${t('signUp')}</button>
</form>
<p><a href="/dashboard">${t('haveAccount')}</a></p>`;

  app.get('/signup', { schema: pageSchema({}), config: open }, async (request, reply) => {
    if (deps.config.signup !== 'open') throw new AppError('not_found', 'not found');
    const t = translator(words, request.consoleLang);
    return send(
      reply,
      request.consoleLang,
      kit.loggedOutCsrf(reply),
      request.url,
      t('signUp'),
      signUpForm(t, kit.loggedOutCsrf(reply), '', null),
    );
  });

  // After a sign-up or a reset request: the same answer whether or not the address is known, so it tells
  // nobody which addresses have accounts.
  const checkYourMail = (reply: FastifyReply, lang: Lang, csrf: string, url: string, email: string) => {
    const t = translator(words, lang);
    return send(
      reply,
      lang,
      csrf,
      url,
      t('checkMail'),
      html`<h1>${t('checkMail')}</h1><p role="status">${t('checkMailText', { email })}</p>`,
    );
  };

  app.post(
    '/signup',
    { schema: pageSchema({ body: Form({ email: Text(), password: Text() }) }), config: open },
    async (request, reply) => {
      if (deps.config.signup !== 'open') throw new AppError('not_found', 'not found');
      const lang = request.consoleLang;
      const t = translator(words, lang);
      const email = (request.body.email ?? '').slice(0, 254);
      const csrf = kit.loggedOutCsrf(reply);
      if (!kit.accountMail) throw new AppError('service_unavailable', 'this gateway cannot send e-mail');
      try {
        await signUp(deps, kit.accountMail, {
          email,
          password: request.body.password ?? '',
          clientAddress: request.ip,
        });
      } catch (err) {
        const shown = problem(err, t);
        if (!shown) throw err;
        if (err instanceof AppError && err.retryAfter) reply.header('Retry-After', String(err.retryAfter));
        return send(
          reply,
          lang,
          csrf,
          request.url,
          t('signUp'),
          signUpForm(t, csrf, email, shown.message),
          shown.status,
        );
      }
      return checkYourMail(reply, lang, csrf, request.url, email);
    },
  );

  // --- the three kinds of links: a page that shows what the link will do, and a POST that does it ---
  const gone = (request: FastifyRequest, reply: FastifyReply) => {
    const t = translator(words, request.consoleLang);
    const body = html`<h1>${t('linkGone')}</h1><p>${t('linkGoneText')}</p><p><a href="/dashboard/reset">${t('resetTitle')}</a></p>`;
    return send(
      reply,
      request.consoleLang,
      kit.loggedOutCsrf(reply),
      request.url,
      t('linkGone'),
      body,
      statusFor('link_invalid'),
    );
  };

  const linkPage = (
    path: string,
    purpose: 'verify' | 'reset' | 'invite',
    title: Key,
    text: Key,
    button: Key,
    // A new password (reset, invitation), or the one chosen at sign-up (confirming an address).
    password: 'new' | 'current',
  ) => {
    const form = (
      t: Translate<Key>,
      csrf: string,
      token: string,
      email: string,
      message: string | null,
    ) => html`<h1>${t(title)}</h1>
<p>${t(text, { email })}</p>
${alert(message)}
<form method="post" action="/dashboard${path}">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="token" value="${token}">
${
  password === 'new'
    ? html`<label for="link-password">${t('newPassword')}</label>
<input id="link-password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="200">
<p class="muted">${t('passwordHint')}</p>`
    : html`<label for="link-password">${t('password')}</label>
<input id="link-password" name="password" type="password" autocomplete="current-password" required maxlength="200">
<p class="muted">${t('confirmPassword')}</p>`
}
<button type="submit">${t(button)}</button>
</form>
${password === 'current' ? html`<p><a href="/dashboard/reset">${t('forgotChosen')}</a></p>` : ''}`;

    app.get(
      path,
      { schema: pageSchema({ querystring: Query({ token: Text() }) }), config: open },
      async (request, reply) => {
        const token = request.query.token ?? '';
        const live = await linkIsLive(deps, token, purpose);
        if (!live) return gone(request, reply);
        const t = translator(words, request.consoleLang);
        const csrf = kit.loggedOutCsrf(reply);
        // The token is in this page's URL: no other site may learn it from a Referer.
        reply.header('Referrer-Policy', 'no-referrer');
        return send(reply, request.consoleLang, csrf, '/dashboard', t(title), form(t, csrf, token, live.email, null));
      },
    );

    app.post(
      path,
      { schema: pageSchema({ body: Form({ token: Text(), password: Text() }) }), config: open },
      async (request, reply) => {
        const token = request.body.token ?? '';
        const password = request.body.password ?? '';
        try {
          const done =
            purpose === 'verify'
              ? await verifyEmail(deps, token, password, client(request))
              : purpose === 'reset'
                ? await resetPassword(deps, token, password, client(request))
                : await acceptInvite(deps, token, password, client(request));
          kit.setSession(reply, done.sessionId);
          return reply.redirect('/dashboard', 303);
        } catch (err) {
          if (err instanceof AppError && err.code === 'link_invalid') return gone(request, reply);
          const t = translator(words, request.consoleLang);
          const shown = linkProblem(err, t);
          if (shown === null) throw err;
          if (err instanceof AppError && err.retryAfter) reply.header('Retry-After', String(err.retryAfter));
          const live = await linkIsLive(deps, token, purpose);
          if (!live) return gone(request, reply);
          const csrf = kit.loggedOutCsrf(reply);
          return send(
            reply,
            request.consoleLang,
            csrf,
            '/dashboard',
            t(title),
            form(t, csrf, token, live.email, shown.message),
            shown.status,
          );
        }
      },
    );
  };

  linkPage('/signup/verify', 'verify', 'confirmTitle', 'confirmText', 'confirm', 'current');
  linkPage('/reset/confirm', 'reset', 'resetTitle', 'choose', 'setPassword', 'new');
  linkPage('/invite', 'invite', 'inviteTitle', 'inviteText', 'accept', 'new');

  // --- asking for a reset link ---
  const resetForm = (t: Translate<Key>, csrf: string, message: string | null) => html`<h1>${t('resetTitle')}</h1>
<p class="muted">${t('resetIntro')}</p>
${alert(message)}
<form method="post" action="/dashboard/reset">
<input type="hidden" name="_csrf" value="${csrf}">
<label for="reset-email">${t('email')}</label>
<input id="reset-email" name="email" type="email" autocomplete="email" required maxlength="254">
<button type="submit">${t('sendLink')}</button>
</form>`;

  // Without SMTP_URL no link can be mailed: the page (reached by an old link or typed) and a form posted
  // anyway both say, in the page's language, to ask the operator, with the way back to the login.
  const noMail = (reply: FastifyReply, lang: Lang, csrf: string, url: string, status: number) => {
    const t = translator(words, lang);
    const body = html`<h1>${t('resetTitle')}</h1>
<div role="${status === 200 ? 'status' : 'alert'}">${askOperatorForPassword(lang)}</div>
${backToLogin(lang)}`;
    return send(reply, lang, csrf, url, t('resetTitle'), body, status);
  };

  app.get('/reset', { schema: pageSchema({}), config: open }, async (request, reply) => {
    const t = translator(words, request.consoleLang);
    const csrf = kit.loggedOutCsrf(reply);
    if (!kit.accountMail) return noMail(reply, request.consoleLang, csrf, request.url, 200);
    return send(reply, request.consoleLang, csrf, request.url, t('resetTitle'), resetForm(t, csrf, null));
  });

  app.post(
    '/reset',
    { schema: pageSchema({ body: Form({ email: Text() }) }), config: open },
    async (request, reply) => {
      const lang = request.consoleLang;
      const t = translator(words, lang);
      const email = (request.body.email ?? '').slice(0, 254);
      const csrf = kit.loggedOutCsrf(reply);
      if (!kit.accountMail) return noMail(reply, lang, csrf, request.url, statusFor('service_unavailable'));
      try {
        await requestPasswordReset(deps, kit.accountMail, email, request.ip);
      } catch (err) {
        const shown = problem(err, t);
        if (!shown) throw err;
        if (err instanceof AppError && err.retryAfter) reply.header('Retry-After', String(err.retryAfter));
        return send(reply, lang, csrf, request.url, t('resetTitle'), resetForm(t, csrf, shown.message), shown.status);
      }
      return checkYourMail(reply, lang, csrf, request.url, email);
    },
  );
}
