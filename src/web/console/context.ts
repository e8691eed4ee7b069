import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SafeHtml } from '../../domain/html.js';
import type { AccountMailer } from '../../mail/account-mail-queue.js';
import type { MailSender } from '../../mail/sender.js';
import { isOperator, type Viewer } from '../../domain/viewer.js';
import type { Deps } from '../../services/deps.js';
import { liveApprovalCount } from '../../services/merchants/live-approval-count.js';
import type { Lang } from '../../presentation/messages.js';
import { renderPage, type Section } from './layout.js';

/** The console's session cookie (routes.ts sets it; a page that must find its viewer early reads it). */
export const SESSION_COOKIE = 'qg_session';
/** An uploaded QRIS image may be a phone photo of several MB; nothing larger is read. */
export const UPLOAD_LIMIT_BYTES = 15 * 1024 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    /** The console's logged-in user (console routes only; null when logged out). */
    viewer: Viewer | null;
    /** The console's language for this request. */
    consoleLang: Lang;
    /** The navigation's count beside Approvals (approvalsInNav); null: no Approvals in it. */
    approvalsWaiting: number | null;
  }
}

/** What the console's sections are given beside the deps. */
export interface ConsoleKit {
  /** Sends an operator's invitation at once; null when no SMTP_URL is set. */
  mail: MailSender | null;
  /** Sends sign-up and reset mails after the answer (account-mail-queue.ts); null when no SMTP_URL is set. */
  accountMail: AccountMailer | null;
  /** Logs the browser in: the session cookie, with the console's attributes. */
  setSession(reply: FastifyReply, sessionId: string): void;
  /** A CSRF token for a logged-out form (sign-up, reset, a link's confirmation). */
  loggedOutCsrf(reply: FastifyReply): string;
}

/** What a console handler needs to answer with a page. */
export interface ConsolePage {
  viewer: Viewer;
  lang: Lang;
  /** A CSRF token for the page's forms (bound to this session). */
  csrf: string;
  /** Sends a whole page. */
  send(title: string, active: Section | undefined, body: SafeHtml, status?: number, head?: SafeHtml): FastifyReply;
}

/**
 * The page context of a logged-in request. The console's preHandler has already sent logged-out
 * requests to the login form, so a handler that calls this always has a viewer.
 */
export function consolePage(request: FastifyRequest, reply: FastifyReply): ConsolePage {
  const viewer = request.viewer;
  if (!viewer) throw new Error('consolePage on a route without a viewer');
  const csrf = reply.generateCsrf({ userInfo: viewer.sessionKey });
  const lang = request.consoleLang;
  return {
    viewer,
    lang,
    csrf,
    send(title, active, body, status = 200, head) {
      const frame = {
        lang,
        title,
        viewer,
        csrf,
        path: request.url,
        approvalsWaiting: request.approvalsWaiting,
        ...(active ? { active } : {}),
        ...(head ? { head } : {}),
      };
      return reply.code(status).type('text/html; charset=utf-8').send(renderPage(frame, body));
    },
  };
}

/** Where to go after a form: a console path only, so a crafted link cannot send anyone elsewhere. */
export function safeNext(next: string | undefined, fallback = '/dashboard'): string {
  return next && /^\/dashboard([/?][A-Za-z0-9/_?=&%.+,:-]*)?$/.test(next) ? next : fallback;
}

/**
 * What the navigation shows beside Approvals: for an operator, how many merchants wait; null (no
 * Approvals at all) for anyone else, and for an operator of a gateway with LIVE_KEYS=auto and nobody
 * left waiting from an earlier setting.
 */
export async function approvalsInNav(deps: Deps, viewer: Viewer | null): Promise<number | null> {
  if (!viewer || !isOperator(viewer)) return null;
  const count = await liveApprovalCount(deps, viewer);
  return count > 0 || deps.config.liveKeys === 'approval' ? count : null;
}
