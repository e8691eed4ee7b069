// What an action tells the page it redirects to (post/redirect/get): a one-time notice in a signed,
// short-lived cookie. Not in the URL, so a crafted link cannot make a console page say anything, and a
// reload or a shared link does not repeat it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { html, type SafeHtml } from '../../domain/html.js';

const NOTICE_COOKIE = 'qg_notice';
/** Longer than any redirect takes; short enough that a notice never greets a later visit. */
const NOTICE_SECONDS = 60;
const MAX_TEXT = 600;

export interface Notice {
  /** 'info': neither good nor bad news (you have logged out). */
  kind: 'success' | 'error' | 'info';
  text: string;
  /** Where to go next, shown after the text (a merchant just added: its keys); a console path only. */
  link?: { href: string; text: string };
}

/** A console path, so that even a notice of ours can only link within the console. */
const CONSOLE_PATH = /^\/dashboard(\/[A-Za-z0-9/_.-]*)?$/;

/** Sets the notice and answers with a 303 to `location`. */
export function redirectWithNotice(reply: FastifyReply, location: string, notice: Notice): FastifyReply {
  leaveNotice(reply, notice);
  return reply.redirect(location, 303);
}

/**
 * Sets the notice for the next page the browser opens, for an answer that is not a redirect (a page's
 * script that was answered in the background and then opens the page itself).
 */
export function leaveNotice(reply: FastifyReply, notice: Notice): void {
  // base64url: the value then needs no cookie encoding, whatever the text holds.
  const link =
    notice.link && CONSOLE_PATH.test(notice.link.href)
      ? { href: notice.link.href, text: notice.link.text.slice(0, MAX_TEXT) }
      : undefined;
  const value = Buffer.from(JSON.stringify({ kind: notice.kind, text: notice.text.slice(0, MAX_TEXT), link })).toString(
    'base64url',
  );
  reply.setCookie(NOTICE_COOKIE, value, {
    path: '/dashboard',
    httpOnly: true,
    sameSite: 'lax',
    secure: 'auto',
    signed: true,
    maxAge: NOTICE_SECONDS,
  });
}

/** The notice left by the previous action, cleared as it is read; null when there is none (or it was tampered with). */
export function takeNotice(request: FastifyRequest, reply: FastifyReply): Notice | null {
  const raw = request.cookies[NOTICE_COOKIE];
  if (raw === undefined) return null;
  reply.clearCookie(NOTICE_COOKIE, { path: '/dashboard' });
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || unsigned.value === null) return null;
  try {
    const parsed = JSON.parse(Buffer.from(unsigned.value, 'base64url').toString('utf8')) as {
      kind?: unknown;
      text?: unknown;
      link?: { href?: unknown; text?: unknown };
    };
    if (
      (parsed.kind === 'success' || parsed.kind === 'error' || parsed.kind === 'info') &&
      typeof parsed.text === 'string'
    ) {
      const href = parsed.link?.href;
      const linkText = parsed.link?.text;
      const linked = typeof href === 'string' && CONSOLE_PATH.test(href) && typeof linkText === 'string';
      return linked
        ? { kind: parsed.kind, text: parsed.text, link: { href, text: linkText } }
        : { kind: parsed.kind, text: parsed.text };
    }
  } catch {
    // A cookie that is not ours to read is no notice.
  }
  return null;
}

export function renderNotice(notice: Notice | null): SafeHtml {
  if (notice === null) return html``;
  const link = notice.link ? html` <a href="${notice.link.href}">${notice.link.text}</a>` : '';
  if (notice.kind === 'info') return html`<p class="notice" role="status">${notice.text}${link}</p>`;
  return notice.kind === 'success'
    ? html`<p class="notice success" role="status">${notice.text}${link}</p>`
    : html`<p class="notice error" role="alert">${notice.text}${link}</p>`;
}
