// A merchant's payment link: /pay/{handle} and /pay/{handle}/{amount}. The handle is a public name in
// the gateway's own URL space, so it is short, plain ASCII, one spelling per name (lower case), and never
// a word the gateway or its operator may want as a path of its own.
import { AppError } from './errors.js';

export const HANDLE_MIN = 3;
export const HANDLE_MAX = 32;
const HANDLE = /^[a-z0-9][a-z0-9-]*$/;

/** Words that look like the gateway's own pages, or that a payer could mistake for them. */
export const RESERVED_HANDLES: ReadonlySet<string> = new Set([
  'about',
  'account',
  'admin',
  'administrator',
  'api',
  'app',
  'assets',
  'auth',
  'billing',
  'cdn',
  'checkout',
  'cqris',
  'cstatus',
  'dashboard',
  'dev',
  'docs',
  'favicon',
  'gateway',
  'health',
  'healthz',
  'help',
  'home',
  'invite',
  'login',
  'logout',
  'mail',
  'metrics',
  'new',
  'null',
  'openapi',
  'operator',
  'pay',
  'payment',
  'payments',
  'qris',
  'readyz',
  'register',
  'reset',
  'root',
  'security',
  'settings',
  'signin',
  'signup',
  'simulate',
  'snap',
  'static',
  'status',
  'support',
  'system',
  'test',
  'undefined',
  'verify',
  'webhook',
  'webhooks',
  'www',
]);

export type HandleProblem = 'length' | 'characters' | 'start' | 'reserved';

/** Why a (trimmed, lower-cased) handle is refused, or null when it is fine. */
export function handleProblem(handle: string): HandleProblem | null {
  if (handle.length < HANDLE_MIN || handle.length > HANDLE_MAX) return 'length';
  if (!/^[a-z0-9-]+$/.test(handle)) return 'characters';
  if (!HANDLE.test(handle)) return 'start';
  if (RESERVED_HANDLES.has(handle)) return 'reserved';
  return null;
}

const MESSAGES: Record<HandleProblem, string> = {
  length: `handle must be ${HANDLE_MIN} to ${HANDLE_MAX} characters`,
  characters: 'handle may contain only letters a-z, digits and "-"',
  start: 'handle must start with a letter or a digit',
  reserved: 'this handle is reserved',
};

/** A handle as typed, checked and stored lower-case; AppError invalid_parameter (param handle) otherwise. */
export function parseHandle(raw: string): string {
  const handle = raw.trim().toLowerCase();
  const problem = handleProblem(handle);
  if (problem) throw new AppError('invalid_parameter', MESSAGES[problem], { param: 'handle' });
  return handle;
}

/** The handle in a URL path, or null when it cannot be one (an unknown link, answered as such). */
export function handleFromPath(raw: string): string | null {
  const handle = raw.toLowerCase();
  return handleProblem(handle) === null ? handle : null;
}

/** How long a link opened again by the same payer gives the same pending transaction. */
export const LINK_REPLAY_WINDOW_MS = 10 * 60_000;

/** The window `at` falls in: equal for two opens of a link in the same ten minutes. */
export const replayBucket = (at: number): number => Math.floor(at / LINK_REPLAY_WINDOW_MS);

/** A link's public address, e.g. https://pay.example.com/pay/warung-saya (and /25000 for a fixed amount). */
export function paymentLinkUrl(publicBaseUrl: string, handle: string, amount?: number): string {
  return `${publicBaseUrl}/pay/${handle}${amount === undefined ? '' : `/${amount}`}`;
}

/**
 * Refs and Idempotency-Keys that payment links make start with this, and the API may not use it: an
 * anonymous payer's `?ref=order-A` is stored as `link:order-A`, so it can never take (a 409) or answer
 * for (a replay of a transaction whose e-mail went to that payer) the `order-A` of the merchant's API.
 */
export const LINK_NAMESPACE = 'link:';

/** A payment link's `?ref=` as stored: in the links' own namespace. */
export const linkRef = (ref: string): string => `${LINK_NAMESPACE}${ref}`;

export const inLinkNamespace = (value: string): boolean => value.startsWith(LINK_NAMESPACE);
