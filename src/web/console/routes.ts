import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import helmet from '@fastify/helmet';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { mayOpen } from '../../domain/viewer.js';
import type { Deps } from '../../services/deps.js';
import type { AccountMailer } from '../../mail/account-mail-queue.js';
import type { MailSender } from '../../mail/sender.js';
import { consoleCookieSecret } from '../../services/users/console-secret.js';
import { logIn } from '../../services/users/log-in.js';
import { endViewerSession } from '../../services/users/end-viewer-session.js';
import { resumeSession } from '../../services/users/resume-session.js';
import { statusFor } from '../../wire/error-status.js';
import { consoleAssets } from '../static-assets.js';
import { closeQrImageReaders } from '../../imaging/read-qr-image.js';
import { Form, Params, Query, Segment, Text, pageSchema } from '../forms.js';
import { approvalsInNav, safeNext, SESSION_COOKIE, UPLOAD_LIMIT_BYTES, type ConsoleKit } from './context.js';
import { LANG_COOKIE, pickLang, type Lang } from '../../presentation/messages.js';
import { renderErrorPage, type ErrorPageKind } from './pages/errors.js';
import { loggedOutNotice, renderLogin, type LoginNotice } from './pages/login.js';
import { redirectWithNotice, takeNotice } from './notice.js';
import { CONSOLE_PAGES } from './pages/index.js';

export { SESSION_COOKIE, UPLOAD_LIMIT_BYTES };
/** What the CSRF tokens of logged-out forms (the login form) are bound to; the library needs a non-empty value. */
const LOGGED_OUT = 'logged-out';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A console route that needs no login (the login form, the language switch, the static files). */
    consolePublic?: boolean;
  }
  interface FastifyRequest {
    /** True while the multipart plugin reads the request's form (see consoleRoutes). */
    readingForm: boolean;
  }
}

/**
 * The console under /dashboard: server-rendered pages for the people who run the gateway. Everything
 * here is registered in its own Fastify scope, so its cookies, CSRF checks, security headers and
 * multipart parsing add nothing to the API's routes.
 */
export async function consoleRoutes(
  app: FastifyInstance,
  deps: Deps,
  mail: MailSender | null = null,
  accountMail: AccountMailer | null = null,
): Promise<void> {
  const secret = await consoleCookieSecret(deps);
  // The image reader's decoder threads (merchant uploads) end with the server.
  app.addHook('onClose', () => closeQrImageReaders());
  const secure = deps.config.publicBaseUrl.startsWith('https:') ? true : ('auto' as const);
  const cookieBase = { path: '/dashboard', httpOnly: true, sameSite: 'lax' as const, secure };
  const signupOpen = deps.config.signup === 'open';
  // Without SMTP_URL no reset link can be mailed: the login form then sends the person to the operator.
  const canMail = accountMail !== null;

  await app.register(
    async (scope) => {
      await scope.register(cookie, { secret, parseOptions: {} });
      await scope.register(csrf, {
        cookieKey: 'qg_csrf',
        // Strict: the CSRF secret never travels on a request another site started.
        cookieOpts: { ...cookieBase, sameSite: 'strict', signed: true },
        // Tokens are bound to the session, so a token from before a login (or of another user) is refused.
        getUserInfo: (request: FastifyRequest) => request.viewer?.sessionKey ?? LOGGED_OUT,
        csrfOpts: { hmacKey: secret },
      });
      await scope.register(helmet, {
        contentSecurityPolicy: {
          useDefaults: false,
          directives: {
            defaultSrc: ["'none'"],
            scriptSrc: ["'self'"],
            styleSrc: ["'self'"],
            imgSrc: ["'self'", 'data:'],
            connectSrc: ["'self'"],
            // The point of sale is installable: its web app manifest and service worker (pages/pos.ts).
            manifestSrc: ["'self'"],
            workerSrc: ["'self'"],
            formAction: ["'self'"],
            frameAncestors: ["'none'"],
            baseUri: ["'none'"],
          },
        },
        frameguard: { action: 'deny' },
        referrerPolicy: { policy: 'same-origin' },
        // Behind TLS the reverse proxy decides HSTS; on plain http it means nothing.
        strictTransportSecurity: false,
        crossOriginEmbedderPolicy: false,
      });
      // The multipart plugin reads the form in a preValidation hook; the hooks around it mark that time, so
      // that what its parser throws on a malformed form (no boundary, a cut-off part: plain errors, no
      // status) is answered as the client's mistake, not as a failure of ours.
      scope.decorateRequest('readingForm', false);
      scope.addHook('preValidation', async (request) => {
        request.readingForm = true;
      });
      await scope.register(multipart, {
        attachFieldsToBody: 'keyValues',
        limits: {
          fileSize: UPLOAD_LIMIT_BYTES,
          files: 1,
          fields: 30,
          parts: 31,
          fieldSize: 64 * 1024,
          headerPairs: 50,
        },
      });
      // Then the CSRF check, before the schemas look at the form: a post another site started is refused as
      // such (403), whatever it holds, and nothing else about it is looked at.
      scope.addHook('preValidation', async (request, reply) => {
        request.readingForm = false;
        // A post with no body at all is an empty form (its schema then finds its fields absent).
        if (request.method !== 'GET' && request.method !== 'HEAD') {
          request.body ??= {};
          await new Promise<void>((resolve, reject) =>
            scope.csrfProtection(request, reply, (err?: Error) => (err ? reject(err) : resolve())),
          );
        }
      });

      scope.decorateRequest('viewer', null);
      scope.decorateRequest('consoleLang', 'en');
      scope.decorateRequest('approvalsWaiting', null);

      // Who is asking is settled before the body is read: a logged-out request is sent to the login form
      // without its upload (up to 15 MB) ever being parsed. The CSRF check needs the parsed form, so it
      // follows in preValidation (above).
      scope.addHook('onRequest', async (request, reply) => {
        request.consoleLang = pickLang(request.cookies[LANG_COOKIE], request.headers['accept-language']);
        if (request.routeOptions.config.consolePublic && request.method === 'GET') return;
        request.viewer = await resumeSession(deps, request.cookies[SESSION_COOKIE]);
        request.approvalsWaiting = await approvalsInNav(deps, request.viewer);
        if (!request.viewer && !request.routeOptions.config.consolePublic) {
          // Logged out (or the session ended): to the login form, and back here afterwards. Nothing a
          // logged-out request posts is acted on.
          const next = request.method === 'GET' ? request.url : '/dashboard';
          return reply.redirect(
            `/dashboard?next=${encodeURIComponent(next)}&expired=${request.cookies[SESSION_COOKIE] ? 1 : 0}`,
            303,
          );
        }
        // A cashier's sections are few (domain/viewer.ts); every other one is not found, whatever its
        // method, before its form is read or its page asks for anything.
        if (request.viewer && !mayOpen(request.viewer, request.url)) return pagedError(request, reply, 404, 'notFound');
      });

      scope.setErrorHandler((error: FastifyError, request, reply) => sendErrorPage(request, reply, error));
      scope.setNotFoundHandler((request, reply) => pagedError(request, reply, 404, 'notFound'));

      const app = scope.withTypeProvider<TypeBoxTypeProvider>();
      const assets = consoleAssets();
      for (const asset of [assets.css, assets.js, assets.soundboxJs, assets.icon]) {
        app.get(
          asset.url.slice('/dashboard'.length),
          { schema: pageSchema({}), config: { consolePublic: true } },
          (_req, reply) => {
            reply.header('Cache-Control', asset.cacheControl).type(asset.type).send(asset.body);
          },
        );
      }

      app.get(
        '/lang/:lang',
        {
          schema: pageSchema({ params: Params({ lang: Segment() }), querystring: Query({ back: Text() }) }),
          config: { consolePublic: true },
        },
        async (request, reply) => {
          const lang = request.params.lang;
          if (lang !== 'en' && lang !== 'id') return pagedError(request, reply, 404, 'notFound');
          reply.setCookie(LANG_COOKIE, lang, { path: '/dashboard', sameSite: 'lax', secure, maxAge: 365 * 86_400 });
          return reply.redirect(safeNext(request.query.back), 303);
        },
      );

      const loginForm = Form({ email: Text(), password: Text(), next: Text() });
      app.post(
        '/login',
        { schema: pageSchema({ body: loginForm }), config: { consolePublic: true } },
        async (request, reply) => {
          const lang = request.consoleLang;
          const email = request.body.email ?? '';
          const next = safeNext(request.body.next);
          try {
            const { sessionId } = await logIn(deps, {
              email,
              password: request.body.password ?? '',
              clientAddress: request.ip,
              userAgent: request.headers['user-agent'] ?? null,
            });
            reply.setCookie(SESSION_COOKIE, sessionId, { ...cookieBase, maxAge: deps.config.sessionMaxHours * 3600 });
            return reply.redirect(next, 303);
          } catch (err) {
            const shown = ['login_failed', 'login_throttled', 'email_unverified', 'service_unavailable'];
            if (!(err instanceof AppError) || !shown.includes(err.code)) throw err;
            // service_unavailable: too many password hashes at once (hashing/password-hasher.ts).
            const notice: LoginNotice =
              err.code === 'login_throttled'
                ? { kind: 'throttled', seconds: err.retryAfter ?? 1 }
                : err.code === 'email_unverified'
                  ? { kind: 'unverified' }
                  : err.code === 'service_unavailable'
                    ? { kind: 'busy' }
                    : { kind: 'failed' };
            if (err.retryAfter) reply.header('Retry-After', String(err.retryAfter));
            const page = renderLogin(
              lang,
              reply.generateCsrf({ userInfo: LOGGED_OUT }),
              '/dashboard',
              next,
              email.slice(0, 254),
              notice,
              signupOpen,
              canMail,
            );
            return reply.code(statusFor(err.code)).type('text/html; charset=utf-8').send(page);
          }
        },
      );

      app.post('/logout', { schema: pageSchema({ body: Form({}) }) }, async (request, reply) => {
        if (request.viewer) await endViewerSession(deps, request.viewer);
        reply.clearCookie(SESSION_COOKIE, { path: '/dashboard' });
        return redirectWithNotice(reply, '/dashboard', loggedOutNotice(request.consoleLang));
      });

      // The console's front door: the overview when logged in, else the login form.
      // `mode` is the overview's; the others the login form's.
      const frontDoorQuery = Query({ next: Text(), expired: Text(), mode: Text() });
      app.get(
        '/',
        { schema: pageSchema({ querystring: frontDoorQuery }), config: { consolePublic: true } },
        async (request, reply) => {
          request.viewer = await resumeSession(deps, request.cookies[SESSION_COOKIE]);
          // A cashier has no overview: its console is the point of sale.
          if (request.viewer?.role === 'cashier') return reply.redirect('/dashboard/pos', 303);
          request.approvalsWaiting = await approvalsInNav(deps, request.viewer);
          if (request.viewer) return CONSOLE_PAGES.overview(deps, request, reply, { mode: request.query.mode });
          // A logout's notice (notice.ts) comes first; `expired` is the login check's own redirect (routes.ts).
          const carried = takeNotice(request, reply);
          const notice: LoginNotice = carried
            ? { kind: 'carried', notice: carried }
            : request.query.expired === '1'
              ? { kind: 'expired' }
              : null;
          const page = renderLogin(
            request.consoleLang,
            reply.generateCsrf({ userInfo: LOGGED_OUT }),
            request.url,
            safeNext(request.query.next),
            '',
            notice,
            signupOpen,
            canMail,
          );
          return reply.type('text/html; charset=utf-8').send(page);
        },
      );

      const kit: ConsoleKit = {
        mail,
        accountMail,
        setSession: (reply, sessionId) =>
          void reply.setCookie(SESSION_COOKIE, sessionId, {
            ...cookieBase,
            maxAge: deps.config.sessionMaxHours * 3600,
          }),
        loggedOutCsrf: (reply) => reply.generateCsrf({ userInfo: LOGGED_OUT }),
      };
      for (const register of CONSOLE_PAGES.sections) await register(scope, deps, kit);
    },
    { prefix: '/dashboard' },
  );
}

function pagedError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  kind: ErrorPageKind,
  detail = '',
  formPath: string | null = null,
): FastifyReply {
  const lang: Lang = request.consoleLang ?? 'en';
  let token = '';
  try {
    token = reply.generateCsrf({ userInfo: request.viewer?.sessionKey ?? LOGGED_OUT });
  } catch {
    // A page about an error must not fail for want of a token; its only form is logout.
  }
  // A failure that may pass (the database out of reach, a fault of ours) offers the same page again; a
  // form's way back is its page (formPath). A session the unreachable database could not check is not
  // sent to the login form: it may well be alive.
  const mayPass = kind === 'unavailable' || kind === 'failed';
  const retryPath = mayPass && (request.method === 'GET' || request.method === 'HEAD') ? request.url : null;
  const sessionUnchecked = kind === 'unavailable' && !request.viewer && Boolean(request.cookies[SESSION_COOKIE]);
  const page = renderErrorPage(
    lang,
    request.viewer ?? null,
    token,
    request.url,
    kind,
    request.id,
    detail,
    { formPath, retryPath, sessionUnchecked },
    request.approvalsWaiting ?? null,
  );
  return reply.code(status).type('text/html; charset=utf-8').send(page);
}

function sendErrorPage(request: FastifyRequest, reply: FastifyReply, error: FastifyError): FastifyReply {
  if (error.code === 'FST_CSRF_INVALID_TOKEN' || error.code === 'FST_CSRF_MISSING_SECRET')
    return pagedError(request, reply, statusFor('csrf_failed'), 'csrf');
  if (
    error.code === 'FST_REQ_FILE_TOO_LARGE' ||
    error.code === 'FST_PARTS_LIMIT' ||
    error.code === 'FST_FILES_LIMIT' ||
    error.statusCode === 413
  ) {
    return pagedError(request, reply, 413, 'tooLarge', `${Math.round(UPLOAD_LIMIT_BYTES / 1024 / 1024)} MB`);
  }
  // A form, query or path that does not fit its route's schema (web/forms.ts): the field is named.
  if (error.validation) {
    const first = error.validation[0];
    const missing =
      first?.params && typeof first.params === 'object' && 'missingProperty' in first.params
        ? String(first.params.missingProperty)
        : '';
    const name =
      (first?.instancePath ?? '').replace(/^\//, '').split('/')[0] || missing || (error.validationContext ?? '');
    return pagedError(request, reply, 400, 'invalid', name, formPage(request));
  }
  if (error instanceof AppError) {
    const status = statusFor(error.code);
    if (error.retryAfter !== undefined) reply.header('Retry-After', String(error.retryAfter));
    // The database out of reach is said in the visitor's language, not by the error's English message.
    if (error.code === 'database_unavailable' || error.code === 'storage_unavailable')
      return pagedError(request, reply, status, 'unavailable', '', formPage(request));
    return pagedError(request, reply, status, status === 404 ? 'notFound' : 'refused', error.message);
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return pagedError(request, reply, error.statusCode, 'refused', error.message);
  }
  if (request.readingForm && error.statusCode === undefined)
    return pagedError(request, reply, 400, 'refused', 'The form could not be read.');
  request.log.error({ err: error }, 'console request failed');
  return pagedError(request, reply, 500, 'failed');
}

/**
 * The page a refused form was posted from, for the way back: the POST's own path when the console has a
 * page to GET there (POST /dashboard/keys comes from GET /dashboard/keys), else null, and the overview is
 * the way back. Always a path inside the console (safeNext), never the query.
 */
function formPage(request: FastifyRequest): string | null {
  if (request.method !== 'POST') return null;
  const pattern = request.routeOptions.url;
  if (!pattern || !request.server.hasRoute({ method: 'GET', url: pattern })) return null;
  const path = safeNext(request.url.split('?')[0], '');
  return path === '' ? null : path;
}
