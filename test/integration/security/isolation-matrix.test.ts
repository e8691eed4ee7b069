// issue 23, "An isolation matrix as a test": every console route and action and every API route, for every
// viewer (operator, a user of merchant A, a user of merchant B, logged out), generated from the app's own
// route table; and every console route naming a transaction for a cashier of A, on its own sale, another
// cashier's, the shop's API order and B's (issue 35). An answer is allowed (2xx/3xx) or a 404 (a 403 only where docs/api.md names one), and an
// answer to one merchant's viewer never carries the other merchant's data. A route added tomorrow is in it
// the day it is added; one whose parameter or form this file cannot fill fails the test with its name.
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml } from '../../../src/domain/html.js';
import { signPayload } from '../../../src/payment-sources/webhook/signature.js';
import { routeTable, type RouteEntry } from '../../../src/http/route-table.js';
import { addWebhookSource } from '../../../src/payment-sources/webhook/setup.js';
import { createApiKey } from '../../../src/services/merchants/create-api-key.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { addWebhookEndpoint } from '../../../src/services/webhooks/add-webhook-endpoint.js';
import { PASSWORD } from '../../helpers/console.js';
import { staticQrisWithNmid } from '../../helpers/qris.js';
import { createInput, vectors } from '../../helpers/context.js';
import {
  fillParams,
  startSeededWorld,
  type MerchantIds,
  type SeededWorld,
  type ViewerName,
  type WorldViewer,
} from '../../helpers/seeded-world.js';

type Side = 'A' | 'B';
const VIEWERS: readonly ViewerName[] = ['operator', 'userA', 'userB', 'anonymous'];
const ownSide = (viewer: ViewerName): Side | null => (viewer === 'userA' ? 'A' : viewer === 'userB' ? 'B' : null);
const canSee = (viewer: ViewerName, side: Side): boolean => viewer === 'operator' || ownSide(viewer) === side;
const otherSide = (side: Side): Side => (side === 'A' ? 'B' : 'A');

/**
 * A plausible form for every console POST, by route pattern. `{name}` is filled from the target
 * merchant's ids (see MerchantIds), `{tag}` with something unique; `ids` points a parameter at another of
 * the merchant's ids. A console POST missing here fails the matrix with its name: give it a form.
 */
interface Form {
  body: Record<string, string | string[]>;
  ids?: Partial<Record<string, keyof MerchantIds>>;
}
const FORMS: Record<string, Form> = {
  '/dashboard/login': { body: { email: 'nobody@world.test', password: 'not the password 1' } },
  '/dashboard/logout': { body: {} },
  '/dashboard/signup': { body: { email: 'new-{tag}@world.test', password: 'a long enough password' } },
  '/dashboard/signup/verify': { body: { token: 'not-a-real-token' } },
  '/dashboard/reset/confirm': { body: { token: 'not-a-real-token', password: 'a long enough password' } },
  '/dashboard/invite': { body: { token: 'not-a-real-token', password: 'a long enough password' } },
  '/dashboard/reset': { body: { email: 'nobody-{tag}@world.test' } },
  '/dashboard/users/invite': { body: { email: 'invitee-{tag}@world.test', merchant: '{merchantId}' } },
  '/dashboard/users/:id/disable': { body: {} },
  '/dashboard/users/:id/enable': { body: {} },
  '/dashboard/account/password': { body: { current: PASSWORD, password: PASSWORD } },
  '/dashboard/account/delete': { body: { password: PASSWORD } },
  '/dashboard/approvals/:merchantId': { body: {} },
  '/dashboard/approvals/:merchantId/reject': { body: {} },
  '/dashboard/approvals/:merchantId/ask-again': { body: {} },
  '/dashboard/transactions/:trxid/cancel': { body: {} },
  '/dashboard/transactions/:trxid/confirm': { body: { reference: 'BANK-{tag}' } },
  '/dashboard/transactions/:trxid/accept': { body: {} },
  '/dashboard/transactions/:trxid/resend': { body: { event: '{eventId}' }, ids: { trxid: 'paidTrxid' } },
  '/dashboard/transactions/:trxid/receipt': { body: {}, ids: { trxid: 'paidTrxid' } },
  '/dashboard/transactions/:trxid/refund': {
    body: { amount: '1000', reason: 'Refund {tag}' },
    ids: { trxid: 'paidTrxid' },
  },
  '/dashboard/payments/:id/assign': { body: { trxid: '{trxid}' } },
  '/dashboard/payments/:id/refund': { body: { reason: 'isolation {tag}' } },
  '/dashboard/webhooks': {
    body: { merchant: '{merchantId}', url: 'http://127.0.0.1:9/new-{tag}', events: ['transaction.paid'] },
  },
  '/dashboard/webhooks/:id/remove': { body: {} },
  '/dashboard/webhooks/:id/resend-failed': { body: {} },
  '/dashboard/notifications': { body: { merchant: '{merchantId}', type: 'email', language: 'id' } },
  // A malformed token and nonce: answered without asking Telegram (which is not on this machine).
  '/dashboard/notifications/telegram/connect': {
    body: { merchant: '{merchantId}', type: 'telegram', language: 'id', bot_token: 'not-a-token' },
  },
  '/dashboard/notifications/telegram/find': {
    body: { merchant: '{merchantId}', language: 'id', bot_token: 'not-a-token', bot: 'some_bot', nonce: 'short' },
  },
  '/dashboard/notifications/:id/test': { body: {} },
  '/dashboard/notifications/:id/remove': { body: {} },
  '/dashboard/sources': { body: { type: 'webhook', merchant: '{merchantId}', mode: 'test' } },
  '/dashboard/sources/:id/enable': { body: {} },
  '/dashboard/sources/:id/disable': { body: {} },
  '/dashboard/merchants/preview': { body: { name: 'Preview {tag}', qris: vectors.vectors[0]!.static } },
  // {qris}: a static code with an NMID of its own each time (a second merchant with one NMID is refused).
  '/dashboard/merchants': { body: { name: 'Another shop {tag}', qris: '{qris}' } },
  '/dashboard/merchants/:id/rename': { body: { name: 'Renamed {tag}' } },
  '/dashboard/merchants/:id/disable': { body: {} },
  '/dashboard/merchants/:id/enable': { body: {} },
  '/dashboard/merchants/:id/daily-report': { body: { daily_report: 'on' } },
  '/dashboard/merchants/:id/unique-code': { body: { unique_code: 'subtract' } },
  '/dashboard/keys': { body: { merchant: '{merchantId}', mode: 'test' } },
  '/dashboard/keys/:id/revoke': { body: {} },
  '/dashboard/links/:merchantId': { body: { handle: '{handle}' } },
  '/dashboard/links/:merchantId/remove': { body: {} },
  '/dashboard/pos': {
    body: { merchant: '{merchantId}', amount: '10000', note: 'Meja {tag}', key: 'isolation-sale-{tag}-0000' },
  },
  '/dashboard/pos/:trxid/cancel': { body: {} },
  '/dashboard/pos/:trxid/simulate': { body: {} },
  '/dashboard/pos/:trxid/receipt': { body: {} },
};

/**
 * Console routes naming a transaction that a cashier may use on any of its merchants' transactions of
 * today: the transaction's page and its receipt link (a paid one's: their own tests say what they answer).
 * Of the rest, the point of sale's (`/dashboard/pos/`) open only a sale the cashier made itself, and every
 * other is not a cashier's at all: a 404 either way.
 */
const CASHIER_ANY_TRANSACTION: ReadonlySet<string> = new Set([
  'GET /dashboard/transactions/:trxid',
  'POST /dashboard/transactions/:trxid/receipt',
]);

/** Query strings every console page is also asked with, naming the other merchant's objects. */
const PAGE_QUERIES = [
  'merchant={merchantId}',
  'q={trxid}',
  'q={ref}',
  'q={email}',
  'added={merchantId}&revoked={keyId}',
];

/**
 * Routes outside the console and the API. `capability`: the URL is the key (a transaction's page, a
 * payment link) and shows that merchant's data to anyone holding it, never another's. `plain`: nothing
 * of any merchant. SNAP's inbound routes are signed per acquirer source (their own tests cover them).
 */
const OTHER_ROUTES: ReadonlyArray<{ prefix: string; kind: 'capability' | 'plain' | 'signed' }> = [
  { prefix: '/checkout/', kind: 'capability' },
  { prefix: '/pay/', kind: 'capability' },
  { prefix: '/receipt/', kind: 'capability' },
  { prefix: '/snap/', kind: 'signed' },
  { prefix: '/docs', kind: 'plain' },
  { prefix: '/healthz', kind: 'plain' },
  { prefix: '/readyz', kind: 'plain' },
  { prefix: '/metrics', kind: 'plain' },
  { prefix: '/openapi.json', kind: 'plain' },
  { prefix: '/signup', kind: 'plain' },
  { prefix: '/favicon.ico', kind: 'plain' },
];

/** Forbidden 403s: only the ones docs/api.md's error table names for an API key. */
const API_403_CODES = ['live_not_approved', 'live_rejected', 'merchant_disabled', 'test_mode_only'];
/** What an API parameter that the route requires is given (trxid is the target's). */
const API_VALUES: Record<string, string> = { amount: '10000', reason: 'isolation check' };

/**
 * An action that changes or ends what later requests rely on runs in a later round: disabling, revoking,
 * removing, cancelling, paying and refunding (1); deleting one's account and switching users (2); logging out (3).
 */
const rankOf = (url: string): number =>
  /\/logout$/.test(url)
    ? 3
    : /\/account\/delete$|\/users\/:id\//.test(url)
      ? 2
      : /\/(disable|revoke|remove|delete|cancel|simulate|refund)$/.test(url)
        ? 1
        : 0;

interface Case {
  what: string;
  viewer: ViewerName;
  /** The merchant whose objects the request names; null when it names none. */
  target: Side | null;
  request: InjectOptions;
  expect(res: LightMyRequestResponse): string | null;
  rank: number;
  /** What the answer must not carry; by default forbiddenFor(viewer). */
  forbidden?: readonly string[];
}

interface OpenApiOp {
  parameters?: Array<{ in: string; name: string; required?: boolean }>;
  requestBody?: { content: Record<string, { schema?: { properties?: Record<string, unknown>; required?: string[] } }> };
  security?: unknown[];
}

describe('the isolation matrix', { timeout: 120_000 }, () => {
  let world: SeededWorld;
  let routes: readonly RouteEntry[];
  let openapi: Record<string, Record<string, OpenApiOp>>;
  let tagCounter = 0;
  const failures: string[] = [];
  /** The marks the operator's answers showed: a mark never shown would make a leak check that cannot fail. */
  const seen = new Set<string>();
  const allMarks = () => [...world.merchants.A.marks, ...world.merchants.B.marks];
  const counts = { requests: 0, byStatus: new Map<number, number>() };

  beforeAll(async () => {
    world = await startSeededWorld();
    routes = routeTable(world.t.app);
    openapi = (JSON.parse((await world.t.app.inject({ url: '/openapi.json' })).body) as { paths: typeof openapi })
      .paths;
  });
  afterAll(async () => {
    console.log(
      `isolation matrix: ${counts.requests} requests; statuses ${JSON.stringify(Object.fromEntries([...counts.byStatus].sort((a, b) => a[0] - b[0])))}`,
    );
    await world?.close();
  });

  const idsOf = (side: Side): MerchantIds => world.merchants[side].ids;
  const fill = (text: string, ids: MerchantIds): string =>
    text.replace(/\{(\w+)\}/g, (_m, name: string) => {
      if (name === 'tag') return `t${++tagCounter}`;
      if (name === 'qris') return staticQrisWithNmid(`ID10299${String(++tagCounter).padStart(8, '0')}`);
      const value = (ids as Record<string, string>)[name];
      if (value === undefined) throw new Error(`no value for {${name}}`);
      return value;
    });
  const fillForm = (form: Form, ids: MerchantIds) =>
    Object.fromEntries(
      Object.entries(form.body).map(([k, v]) => [k, Array.isArray(v) ? v.map((one) => fill(one, ids)) : fill(v, ids)]),
    );
  const namesIds = (form: Form): boolean =>
    Object.values(form.body)
      .flat()
      .some((v) => /\{(?!tag\}|qris\})\w+\}/.test(v));
  const urlFor = (route: RouteEntry, ids: MerchantIds, form?: Form): string => {
    const pointed = { ...ids } as Record<string, string>;
    for (const [param, key] of Object.entries(form?.ids ?? {})) if (key) pointed[param] = ids[key];
    return fillParams(route.url, pointed);
  };
  const formRequest = (
    viewer: WorldViewer,
    url: string,
    fields: Record<string, string | string[]>,
    csrf: boolean,
  ): InjectOptions => {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(csrf ? { _csrf: viewer.csrf, ...fields } : fields))
      for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
    return {
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form.toString(),
    };
  };

  /**
   * The marks of data a viewer must not see: the other merchant's (and the unowned seed merchant's) for
   * a merchant user; every merchant's for a logged-out visitor of the console or the API.
   */
  const forbiddenFor = (viewer: ViewerName): string[] => {
    const seedMerchant = [world.t.merchant.id];
    if (viewer === 'operator') return [];
    if (viewer === 'anonymous') return [...world.merchants.A.marks, ...world.merchants.B.marks, ...seedMerchant];
    return [...world.merchants[otherSide(ownSide(viewer)!)].marks, ...seedMerchant];
  };
  /** A mark the request itself carried may be echoed (a filter field, the URL in a link): not a leak. */
  const leaks = (res: LightMyRequestResponse, request: InjectOptions, forbidden: readonly string[]): string[] => {
    const sent = `${request.url as string} ${String(request.payload ?? '')}`;
    const sentDecoded = safeDecode(sent);
    return forbidden.filter(
      (mark) =>
        !sent.includes(mark) &&
        !sentDecoded.includes(mark) &&
        (res.body.includes(mark) || res.body.includes(escapeHtml(mark))),
    );
  };

  async function run(cases: Case[]): Promise<void> {
    for (const c of cases) {
      const viewer = world.viewers[c.viewer];
      const res = await viewer.inject(c.request);
      counts.requests++;
      counts.byStatus.set(res.statusCode, (counts.byStatus.get(res.statusCode) ?? 0) + 1);
      const why = res.statusCode >= 500 ? '5xx' : c.expect(res);
      const leaked = leaks(res, c.request, c.forbidden ?? forbiddenFor(c.viewer));
      if (c.viewer === 'operator')
        for (const mark of allMarks())
          if (res.body.includes(mark) || res.body.includes(escapeHtml(mark))) seen.add(mark);
      if (why)
        failures.push(
          `${c.what} as ${c.viewer}${c.target ? ` on ${c.target}'s` : ''}: ${why} (got ${res.statusCode} ${String(res.headers.location ?? '')} ${res.body.slice(0, 160).replace(/\s+/g, ' ')})`,
        );
      if (leaked.length > 0)
        failures.push(
          `${c.what} as ${c.viewer}${c.target ? ` on ${c.target}'s` : ''}: the answer (${res.statusCode}) carries ${leaked.join(', ')}`,
        );
    }
  }

  // --- expectations ---
  const notServerError = (res: LightMyRequestResponse) => (res.statusCode < 500 ? null : '5xx');
  const allowed = (res: LightMyRequestResponse) =>
    res.statusCode >= 200 && res.statusCode < 400 ? null : 'not allowed (2xx/3xx)';
  const allowedOr404 = (res: LightMyRequestResponse) =>
    res.statusCode === 404 || (res.statusCode >= 200 && res.statusCode < 400) ? null : 'neither allowed nor 404';
  const notFound = (res: LightMyRequestResponse) => (res.statusCode === 404 ? null : 'not a 404');
  const toLogin = (res: LightMyRequestResponse) =>
    res.statusCode === 303 && /^\/dashboard\?next=/.test(String(res.headers.location))
      ? null
      : 'not sent to the login form';
  const csrfRefused = (res: LightMyRequestResponse) =>
    res.statusCode === 403 ? null : 'a POST without its CSRF token was not refused';
  const apiCode = (res: LightMyRequestResponse): string | undefined => {
    try {
      return (JSON.parse(res.body) as { error?: { code?: string } }).error?.code;
    } catch {
      return undefined;
    }
  };
  const apiRefusedCross = (res: LightMyRequestResponse) =>
    res.statusCode === 404 || (res.statusCode === 403 && API_403_CODES.includes(apiCode(res) ?? ''))
      ? null
      : 'not a 404 (or a documented 403)';
  const apiAllowed = (res: LightMyRequestResponse) =>
    (res.statusCode >= 200 && res.statusCode < 400) ||
    (res.statusCode === 403 && API_403_CODES.includes(apiCode(res) ?? ''))
      ? null
      : 'not allowed (or a documented 403)';

  /** Every route is the console's, the API's, or one of OTHER_ROUTES; anything else fails here. */
  function classify(route: RouteEntry): 'console' | 'api' | (typeof OTHER_ROUTES)[number]['kind'] {
    if (route.url === '/dashboard' || route.url.startsWith('/dashboard/')) return 'console';
    if (route.url.startsWith('/api/')) return 'api';
    const other = OTHER_ROUTES.find((o) => route.url.startsWith(o.prefix));
    if (!other)
      throw new Error(
        `route ${route.method} ${route.url} is neither the console's, the API's nor a known public one: add it to the matrix`,
      );
    return other.kind;
  }

  // --- the console ---
  function consoleCases(route: RouteEntry, round: 'shared' | 'own'): Case[] {
    const cases: Case[] = [];
    const publicRoute = route.config.consolePublic === true;
    const targeted = route.url.includes(':') || (route.method === 'POST' && namesIds(formOf(route)));
    const sides: Array<Side | null> = targeted ? ['A', 'B'] : [null];
    if (route.method === 'GET') {
      if (round === 'own') return [];
      for (const viewer of VIEWERS) {
        for (const side of sides) {
          const ids = idsOf(side ?? otherSide(ownSide(viewer) ?? 'A'));
          // A transaction's page is asked for the pending one and the paid one (which shows its payment).
          const urls = [
            ...new Set([fillParams(route.url, ids), fillParams(route.url, { ...ids, trxid: ids.paidTrxid })]),
          ];
          const queries = targeted ? [''] : ['', ...PAGE_QUERIES.map((q) => `?${fill(q, ids)}`)];
          for (const [url, query] of urls.flatMap((u) => queries.map((q) => [u, q] as const))) {
            const expectation =
              viewer === 'anonymous' && !publicRoute
                ? toLogin
                : publicRoute
                  ? notServerError
                  : side === null
                    ? allowedOr404
                    : canSee(viewer, side)
                      ? allowed
                      : notFound;
            // A console stream (the soundbox's) never ends by itself: HEAD runs its handler, checks and
            // all, and ends with the headers.
            const method = route.url.endsWith('/events') ? 'HEAD' : 'GET';
            cases.push({
              what: `${method} ${route.url}${query ? ` ${query}` : ''}`,
              viewer,
              target: side,
              request: { method, url: `${url}${query}` },
              expect: expectation,
              rank: 0,
            });
          }
        }
      }
      return cases;
    }
    const form = formOf(route);
    for (const viewer of VIEWERS) {
      for (const side of sides) {
        // Untargeted forms act for the viewer: its own merchant's ids (the operator's: A's).
        const ids = idsOf(side ?? ownSide(viewer) ?? 'A');
        const url = urlFor(route, ids, form);
        const fields = fillForm(form, ids);
        const what = `POST ${route.url}`;
        const visible = side === null || canSee(viewer, side);
        if (round === 'shared') {
          // Without its token a form is refused, whoever posts it and whatever it names; so is a form
          // with another session's token (tokens are bound to the session).
          cases.push({
            what: `${what} without CSRF`,
            viewer,
            target: side,
            request: formRequest(world.viewers[viewer], url, fields, false),
            expect: viewer === 'anonymous' && !publicRoute ? toLogin : csrfRefused,
            rank: 0,
          });
          const stranger = world.viewers[VIEWERS[(VIEWERS.indexOf(viewer) + 1) % VIEWERS.length]!];
          cases.push({
            what: `${what} with ${stranger.name}'s CSRF token`,
            viewer,
            target: side,
            request: formRequest(world.viewers[viewer], url, { ...fields, _csrf: stranger.csrf }, false),
            expect: viewer === 'anonymous' && !publicRoute ? toLogin : csrfRefused,
            rank: 0,
          });
          if (viewer === 'anonymous' && !publicRoute) {
            cases.push({
              what,
              viewer,
              target: side,
              request: formRequest(world.viewers[viewer], url, fields, true),
              expect: toLogin,
              rank: 0,
            });
          } else if (side !== null && !visible) {
            cases.push({
              what,
              viewer,
              target: side,
              request: formRequest(world.viewers[viewer], url, fields, true),
              expect: notFound,
              rank: 0,
            });
          } else if (side !== null && viewer !== 'operator' && route.url.includes(':') && namesIds(form)) {
            // Its own object, with the other merchant's objects in the form (a payment assigned to
            // another's transaction, another's handle): refused somehow, and nothing changes.
            const theirs = fillForm(form, idsOf(otherSide(side)));
            cases.push({
              what: `${what} naming ${otherSide(side)}'s objects in the form`,
              viewer,
              target: otherSide(side),
              request: formRequest(world.viewers[viewer], url, theirs, true),
              expect: notServerError,
              rank: 0,
            });
          }
        } else if (visible && (viewer !== 'anonymous' || publicRoute)) {
          // Its own objects. The operator's forms all work (so the forms above are ones that would have
          // acted); a merchant user's may be an operator's form (a 404). In the last rounds an object
          // may be gone already (a deleted account), and the account forms answer as they please.
          const expectation = publicRoute
            ? notServerError
            : viewer !== 'operator'
              ? allowedOr404
              : rankOf(route.url) < 2
                ? allowed
                : notServerError;
          cases.push({
            what,
            viewer,
            target: side,
            request: formRequest(world.viewers[viewer], url, fields, true),
            expect: expectation,
            rank: rankOf(route.url),
          });
        }
      }
    }
    return cases;
  }

  function formOf(route: RouteEntry): Form {
    const form = FORMS[route.url];
    if (!form) throw new Error(`console route POST ${route.url} has no form in the isolation matrix: add one to FORMS`);
    return form;
  }

  // --- the API ---
  function operationOf(route: RouteEntry): OpenApiOp | null {
    const path = route.url.replace(/^\/api\/api\//, '/api/').replace(/:(\w+)/g, '{$1}');
    return openapi[path]?.[route.method.toLowerCase()] ?? null;
  }

  function apiCases(route: RouteEntry, round: 'shared' | 'own'): Case[] {
    const op = operationOf(route);
    const cases: Case[] = [];
    const keysOf = (viewer: ViewerName): Array<{ name: string; key: string | null; side: Side | null }> => {
      const side = ownSide(viewer);
      if (viewer === 'operator') return [];
      if (!side) return [{ name: 'no key', key: null, side: null }];
      const m = world.merchants[side];
      return [
        { name: `${side}'s test key`, key: m.testKey, side },
        { name: `${side}'s live key`, key: m.liveKey, side },
      ];
    };
    if (!op) {
      // A method the route refuses (405) or a hidden twin: refused for everyone, with nothing in it.
      if (round === 'own') return [];
      for (const viewer of VIEWERS) {
        for (const k of keysOf(viewer)) {
          const ids = idsOf(k.side ? otherSide(k.side) : 'A');
          const url = fillParams(route.url, ids);
          cases.push({
            what: `${route.method} ${route.url} with ${k.name}`,
            viewer,
            target: k.side ? otherSide(k.side) : 'A',
            request: {
              method: route.method as InjectOptions['method'],
              url,
              headers: k.key ? { 'x-api-key': k.key } : {},
            },
            expect: (res) => (res.statusCode >= 400 ? null : 'a hidden method answered'),
            rank: 0,
          });
        }
      }
      return cases;
    }
    const query = op.parameters?.filter((p) => p.in === 'query') ?? [];
    const bodySchema = op.requestBody?.content['application/json']?.schema;
    const signed = op.parameters?.some((p) => p.in === 'header' && p.name === 'x-signature') ?? false;
    const keyless = Array.isArray(op.security) && op.security.length === 0;
    const namesTrx =
      query.some((p) => p.name === 'trxid') || Object.keys(bodySchema?.properties ?? {}).includes('trxid');
    const targeted = route.url.includes(':') || namesTrx;
    const build = (ids: MerchantIds, key: string | null, signer: string | null, withTrxid: boolean): InjectOptions => {
      const params = new URLSearchParams();
      for (const p of query) {
        if (p.name === 'trxid') {
          if (withTrxid) params.set('trxid', ids.trxid);
        } else if (API_VALUES[p.name] !== undefined) {
          params.set(p.name, API_VALUES[p.name]!);
        } else if (p.required) {
          throw new Error(`API route ${route.method} ${route.url} requires ${p.name}: give it a value in API_VALUES`);
        }
      }
      const headers: Record<string, string> = key ? { 'x-api-key': key } : {};
      let payload: string | undefined;
      if (signed) {
        payload = JSON.stringify({
          id: `report-${++tagCounter}`,
          amount: 50_000 + tagCounter,
          paid_at: new Date(world.t.clock.now()).toISOString(),
        });
        headers['content-type'] = 'application/json';
        if (signer) headers['x-signature'] = signPayload(signer, payload, Math.floor(world.t.clock.now() / 1000));
      } else if (bodySchema) {
        const body: Record<string, string> = {};
        for (const name of Object.keys(bodySchema.properties ?? {})) {
          const value = API_VALUES[name];
          if (value !== undefined) body[name] = value;
          else if (bodySchema.required?.includes(name))
            throw new Error(
              `API route ${route.method} ${route.url} requires ${name} in its body: give it a value in API_VALUES`,
            );
        }
        if (
          withTrxid &&
          !query.some((p) => p.name === 'trxid') &&
          Object.keys(bodySchema.properties ?? {}).includes('trxid')
        )
          body.trxid = ids.trxid;
        payload = JSON.stringify(body);
        headers['content-type'] = 'application/json';
      }
      const search = params.toString();
      return {
        method: route.method as InjectOptions['method'],
        url: `${fillParams(route.url, ids)}${search ? `?${search}` : ''}`,
        headers,
        ...(payload !== undefined ? { payload } : {}),
      };
    };
    for (const viewer of VIEWERS) {
      for (const k of keysOf(viewer)) {
        const what = `${route.method} ${route.url} with ${k.name}`;
        const signer = k.side ? world.merchants[k.side].sourceSecret : null;
        const live = k.key?.startsWith('sk_live_') === true;
        if (k.side === null) {
          // Logged out: no key, no signature. Only the keyless routes answer, and with nothing of anyone.
          if (round === 'own') continue;
          for (const side of targeted ? (['A', 'B'] as const) : [null]) {
            const request = build(idsOf(side ?? 'A'), null, null, side !== null);
            const expectation =
              keyless && !signed
                ? allowedOr404
                : (res: LightMyRequestResponse) =>
                    res.statusCode === 401 || res.statusCode === 404 ? null : 'not a 401 or 404';
            cases.push({
              what,
              viewer,
              target: keyless && !signed ? null : side,
              request,
              expect: expectation,
              rank: 0,
            });
          }
          continue;
        }
        if (round === 'shared' && targeted) {
          const theirs = otherSide(k.side);
          const request = build(idsOf(theirs), k.key, signer, true);
          // The QR image is public (the trxid is the capability); the rest must not know the other's object.
          const expectation =
            keyless && !signed
              ? allowed
              : signed
                ? (res: LightMyRequestResponse) =>
                    res.statusCode === 401 ? null : "a report signed with another source's secret was not refused"
                : apiRefusedCross;
          cases.push({ what, viewer, target: theirs, request, expect: expectation, rank: 0 });
          if (!keyless) {
            // Its own key in the header and the other merchant's in the query: the keys must agree.
            const other = world.merchants[theirs];
            const both = build(idsOf(theirs), k.key, signer, true);
            const url = `${both.url as string}${(both.url as string).includes('?') ? '&' : '?'}apikey=${live ? other.liveKey : other.testKey}`;
            cases.push({
              what: `${what} and ${theirs}'s key as apikey`,
              viewer,
              target: theirs,
              request: { ...both, url },
              expect: (res) => (res.statusCode === 400 ? null : 'disagreeing keys were not refused'),
              rank: 0,
            });
          }
        }
        if (round === 'own') {
          const mine = idsOf(k.side);
          // A live key does not see test transactions (404); an action after an earlier one of this round
          // may find its transaction no longer pending (409).
          const expectation = (res: LightMyRequestResponse) =>
            (res.statusCode === 404 && live) || (res.statusCode === 409 && rankOf(route.url) > 0)
              ? null
              : apiAllowed(res);
          cases.push({
            what,
            viewer,
            target: targeted ? k.side : null,
            request: build(mine, k.key, signer, targeted),
            expect: expectation,
            rank: rankOf(route.url),
          });
          if (
            query.some((p) => p.name === 'trxid' && !p.required) &&
            route.method === 'GET' &&
            rankOf(route.url) === 0
          ) {
            cases.push({
              what: `${what} (no trxid)`,
              viewer,
              target: null,
              request: build(mine, k.key, signer, false),
              expect: apiAllowed,
              rank: 0,
            });
          }
        }
      }
    }
    return cases;
  }

  // --- the rest: capability pages and plain public routes ---
  function otherCases(route: RouteEntry, kind: 'capability' | 'plain' | 'signed'): Case[] {
    // The status stream never ends by itself; its JSON twin (/status) is asked instead.
    const stream = route.url.endsWith('/events');
    if (route.method !== 'GET' || kind === 'signed' || stream) {
      // Still filled, so a new parameter is noticed; answered by its own tests.
      if (kind !== 'signed') fillParams(route.url, { ...idsOf('A'), wildcard: 'index.html' });
      return [];
    }
    const cases: Case[] = [];
    for (const side of route.url.includes(':') ? (['A', 'B'] as const) : ['A' as const]) {
      const url = fillParams(route.url, { ...idsOf(side), wildcard: 'index.html' });
      if (kind === 'capability') {
        // Anyone holding A's URL sees A's page, and nothing of B.
        const forbidden = world.merchants[otherSide(side)].marks;
        cases.push({
          what: `GET ${route.url}`,
          viewer: 'anonymous',
          target: side,
          request: { method: 'GET', url },
          expect: allowedOr404,
          rank: 0,
          forbidden,
        });
      } else {
        cases.push({
          what: `GET ${route.url}`,
          viewer: 'anonymous',
          target: side,
          request: { method: 'GET', url },
          expect: notServerError,
          rank: 0,
        });
      }
    }
    return cases;
  }

  function casesFor(round: 'shared' | 'own'): Case[] {
    const cases: Case[] = [];
    for (const route of routes) {
      // HEAD is GET's twin, answered by the same handler.
      if (route.method === 'HEAD') continue;
      const kind = classify(route);
      if (kind === 'console') {
        if (route.method === 'GET' || route.method === 'POST') cases.push(...consoleCases(route, round));
        else throw new Error(`console route ${route.method} ${route.url}: the matrix knows GET and POST only`);
      } else if (kind === 'api') cases.push(...apiCases(route, round));
      // A payment link's open makes a transaction: these run with the actions.
      else if (round === 'own') cases.push(...otherCases(route, kind));
    }
    return cases;
  }

  it('refuses every viewer what is not its own, and changes nothing doing so', async () => {
    failures.length = 0;
    const before = await world.snapshot();
    const cases = casesFor('shared');
    await run(cases);
    expect(failures, failures.join('\n')).toEqual([]);
    expect(await world.snapshot()).toEqual(before);
    expect(cases.length).toBeGreaterThan(500);
    // Every mark is something the console really shows (event ids and the checkout's "Rp71.918" aside),
    // so its absence from the other viewer's answers means something.
    expect(allMarks().filter((m) => !seen.has(m) && !/^evt_|^Rp\d/.test(m))).toEqual([]);
  });

  it('lets a cashier open and cancel only its own sales at the point of sale, and changes nothing else (issue 35, finding 4)', async () => {
    failures.length = 0;
    const A = idsOf('A');
    const targets = [
      { name: "another cashier's sale", trxid: world.sales.others, side: 'A' as const, own: false },
      { name: "the shop's API order", trxid: A.trxid, side: 'A' as const, own: false },
      { name: "B's order", trxid: idsOf('B').trxid, side: 'B' as const, own: false },
      { name: 'its own sale', trxid: world.sales.own, side: 'A' as const, own: true },
    ];
    const named = routes.filter(
      (r) =>
        classify(r) === 'console' && r.url.split('/').includes(':trxid') && (r.method === 'GET' || r.method === 'POST'),
    );
    // The walk sees the routes that matter (a table that lost them would make it pass emptily).
    expect(named.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining([
        'GET /dashboard/pos/:trxid',
        'POST /dashboard/pos/:trxid/cancel',
        'POST /dashboard/transactions/:trxid/cancel',
        ...CASHIER_ANY_TRANSACTION,
      ]),
    );
    const casesOf = (target: (typeof targets)[number]): Case[] =>
      named
        .map((route): Case => {
          const name = `${route.method} ${route.url}`;
          const any = target.side === 'A' && CASHIER_ANY_TRANSACTION.has(name);
          const own = target.side === 'A' && route.url.startsWith('/dashboard/pos/') && target.own;
          const ids = { ...idsOf(target.side), trxid: target.trxid };
          const url = fillParams(route.url, ids);
          const request: InjectOptions =
            route.method === 'GET'
              ? { method: 'GET', url }
              : formRequest(world.viewers.cashierA, url, fillForm(formOf(route), ids), true);
          return {
            what: `${name} on ${target.name}`,
            viewer: 'cashierA',
            target: target.side,
            request,
            expect: own ? allowed : any ? notServerError : notFound,
            // Changes run last (its own sale's cancel), and paying it from the counter after that (the
            // sale is the sandbox's: a cancelled one stays cancelled, so the cancel is still seen).
            rank: route.method === 'GET' ? 0 : route.url.endsWith('/simulate') ? 2 : 1,
            forbidden: [...world.merchants.B.marks, world.t.merchant.id],
          };
        })
        .sort((x, y) => x.rank - y.rank);
    const before = await world.snapshot();
    await run(targets.filter((x) => !x.own).flatMap(casesOf));
    expect(failures, failures.join('\n')).toEqual([]);
    expect(await world.snapshot()).toEqual(before);

    await run(casesOf(targets.find((x) => x.own)!));
    expect(failures, failures.join('\n')).toEqual([]);
    const statusOf = async (id: string) =>
      (await world.t.deps.db.selectFrom('transactions').select('status').where('id', '=', id).executeTakeFirstOrThrow())
        .status;
    expect(await statusOf(world.sales.own)).toBe('cancelled');
    expect(await statusOf(world.sales.others)).toBe('pending');
  });

  it('shows a merchant user the same pages however the other merchant changes (counts and sums included)', async () => {
    // A leak of a figure (a count, a sum) carries no id: ask every page that names no object before and
    // after B gains objects of every kind; A's user must see the same bytes (the tokens aside).
    const pages = routes
      .filter((r) => r.method === 'GET' && r.url.startsWith('/dashboard') && !r.url.includes(':'))
      .map((r) => r.url);
    const userA = world.viewers.userA;
    const read = async () => Promise.all(pages.map(async (url) => normalise((await userA.get(url)).body)));
    const before = await read();
    await growMerchant(world, 'B');
    const after = await read();
    expect(pages.filter((_url, i) => after[i] !== before[i])).toEqual([]);
    expect(pages.length).toBeGreaterThan(10);
  });

  it('lets every viewer act on its own, last, and its answers still carry nothing of the other merchant', async () => {
    failures.length = 0;
    const cases = casesFor('own');
    const order: ViewerName[] = ['userA', 'userB', 'operator', 'anonymous'];
    cases.sort((x, y) => x.rank - y.rank || order.indexOf(x.viewer) - order.indexOf(y.viewer));
    await run(cases);
    expect(failures, failures.join('\n')).toEqual([]);
  });
});

/** A page without what differs on every answer: CSRF tokens and request ids. */
// The CSRF token and the point of sale's one-time sale key are new on every rendering.
const normalise = (page: string): string =>
  page.replace(/name="(?:_csrf|key)" value="[^"]*"/g, '').replace(/req_[0-9A-Za-z]+/g, 'req');

/** Objects of every kind for one merchant, made through the services as its own integration would. */
async function growMerchant(world: SeededWorld, side: Side): Promise<void> {
  const deps = world.t.deps;
  const merchantId = world.merchants[side].ids.merchantId;
  const pending = await createTransaction(deps, createInput(merchantId, 93_000, { ref: 'grown-1' }));
  const paid = (await createTransaction(deps, createInput(merchantId, 94_000))).transaction;
  await recordPayment(deps, {
    merchantId,
    mode: 'test',
    source: 'simulator',
    sourcePaymentId: 'grown-paid',
    amount: paid.total_amount,
    paidAt: deps.now(),
    trxid: paid.id,
  });
  await recordPayment(deps, {
    merchantId,
    mode: 'test',
    source: 'manual',
    sourcePaymentId: 'grown-stray',
    amount: 95_555,
    paidAt: deps.now(),
  });
  await createTransaction(deps, createInput(merchantId, 96_000, { mode: 'live' }));
  await addWebhookEndpoint(deps, { merchantId, url: 'http://127.0.0.1:9/grown' });
  await addWebhookSource(deps, { merchantId, mode: 'live' });
  await createApiKey(deps, { merchantId, mode: 'test' });
  expect(pending.transaction.status).toBe('pending');
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}
