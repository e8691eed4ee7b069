// issue 24, item 10: what holds for every API route and console page, generated from the app's own route
// table, so a route added tomorrow is covered the day it is added (a route that takes no key is one whose
// OpenAPI operation declares its own `security`: a rule, not a list). For the API:
//  - every API route that takes a key refuses a request without one: 401 api_key_required in the envelope;
//  - every API path refuses a method it does not allow: 405 method_not_allowed in the envelope, with an
//    Allow header naming the methods it does allow, and changes nothing.
// Both mounts (/api and /api/api) are walked. And for the console:
//  - every non-public console page sends a logged-out visitor to the login form, which brings it back to
//    exactly that page (`next`), not told its session expired (`expired=0`).
// The isolation matrix (isolation-matrix.test.ts) already asserts, for every console route and every
// viewer, that a POST without its CSRF token is refused with 403 (csrfRefused) and that a logged-out GET is
// a 303 to `/dashboard?next=` (toLogin); those are not repeated here. What this file adds for the console
// is the exact location, which the per-page tests asserted page by page.
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, type RouteEntry } from '../../../src/http/route-table.js';
import { create, CSTATUS } from '../../helpers/api.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { expectError, header } from '../../helpers/http-assertions.js';
import { fillParams, PLACEHOLDER_IDS } from '../../helpers/seeded-world.js';

interface OpenApiOp {
  security?: unknown[];
}

/** The methods a client may send (a path allows some, refuses the rest). */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const IDS = PLACEHOLDER_IDS;

describe('the rules every route shares', () => {
  let t: TestApp;
  let api: RouteEntry[];
  let openapi: Record<string, Record<string, OpenApiOp>>;

  beforeAll(async () => {
    t = await createTestApp({ CONSOLE: 'true' });
    api = routeTable(t.app).filter((r) => r.url.startsWith('/api/'));
    openapi = (JSON.parse((await t.app.inject({ url: '/openapi.json' })).body) as { paths: typeof openapi }).paths;
  });
  afterAll(async () => t.close());

  /** The path as the OpenAPI document names it: the second mount is the first's twin. */
  const documented = (url: string): string => url.replace(/^\/api\/api\//, '/api/').replace(/:(\w+)/g, '{$1}');
  /**
   * The methods a path allows: the ones its /api mount shows (a refusal of other methods is hidden from the
   * OpenAPI document, as is every route of the second mount). Every other method of the path refuses.
   */
  const allowedAt = (url: string): string[] => {
    const first = url.replace(/^\/api\/api\//, '/api/');
    return api.filter((r) => r.url === first && !r.hidden).map((r) => r.method);
  };
  /**
   * A documented operation that declares its own security (`[]`: a QR image, a signed source report) takes
   * no key; every other one does. A HEAD is its GET's operation.
   */
  const takesKey = (route: RouteEntry): boolean => {
    const method = route.method === 'HEAD' ? 'get' : route.method.toLowerCase();
    return openapi[documented(route.url)]?.[method]?.security === undefined;
  };
  const isAllowed = (route: RouteEntry): boolean => allowedAt(route.url).includes(route.method);
  const transactions = async () =>
    Number(
      (
        await t.deps.db
          .selectFrom('transactions')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('finds an allowed method on every API path, and both mounts of each', () => {
    const paths = new Set(api.map((r) => r.url));
    expect(paths.size).toBeGreaterThan(0);
    for (const url of paths) {
      expect(allowedAt(url), `${url} allows no method`).not.toHaveLength(0);
      const twin = url.startsWith('/api/api/') ? url.slice(4) : `/api${url}`;
      expect(paths.has(twin), `${url} has no twin ${twin}`).toBe(true);
    }
    // The rule that picks the keyless routes picks exactly these (a new keyless route is a decision: add it).
    const keyless = [
      ...new Set(
        api
          .filter((r) => isAllowed(r) && !takesKey(r) && !r.url.startsWith('/api/api/'))
          .map((r) => `${r.method} ${r.url}`),
      ),
    ].sort();
    expect(keyless).toEqual([
      'GET /api/payment-gateway/qr/:file',
      'HEAD /api/payment-gateway/qr/:file',
      'POST /api/payment-sources/:source/events',
    ]);
  });

  // Moved here: the per-route checks of cstatus (http-edges.test.ts), cqris (create-transaction.test.ts),
  // cancel (cancel.test.ts) and simulate (simulate.test.ts, which also asserted the transaction stays pending).
  it('refuses a request without a key: 401 api_key_required naming apikey, in the envelope, and changes nothing', async () => {
    const tx = await create<{ trxid: string }>(t.app, t.testKey);
    const before = await transactions();
    const checked: string[] = [];
    for (const route of api.filter((r) => isAllowed(r) && takesKey(r))) {
      const request: InjectOptions = {
        method: route.method as InjectOptions['method'],
        url: `${fillParams(route.url, IDS)}?trxid=${tx.trxid}&amount=10000`,
      };
      const res = await t.app.inject(request);
      if (route.method === 'HEAD') {
        // A HEAD answer has no body to carry the envelope.
        expect(res.statusCode, `HEAD ${route.url}`).toBe(401);
      } else {
        expectError(res, 401, 'api_key_required', 'apikey');
      }
      checked.push(`${route.method} ${route.url}`);
    }
    expect(checked).toEqual(
      expect.arrayContaining([
        'GET /api/payment-gateway/cqris',
        'GET /api/payment-gateway/cstatus',
        'GET /api/payment-gateway/cancel',
        'POST /api/payment-gateway/simulate',
      ]),
    );
    expect(await transactions()).toBe(before);
    const stored = await t.deps.db
      .selectFrom('transactions')
      .select('status')
      .where('id', '=', tx.trxid)
      .executeTakeFirstOrThrow();
    expect(stored.status).toBe('pending');
  });

  // Moved here from http-edges.test.ts ('answers a wrong method with 405 method_not_allowed and an Allow header').
  it('refuses a method the path does not allow: 405 method_not_allowed with an Allow header, in the envelope', async () => {
    const checked: string[] = [];
    // Every method of every path, not only the refusals the table holds: a new path that forgot them fails.
    for (const url of new Set(api.map((r) => r.url))) {
      for (const method of METHODS.filter((m) => !allowedAt(url).includes(m))) {
        const res = await t.app.inject({
          method,
          url: `${fillParams(url, IDS)}?amount=1000`,
          headers: { 'x-api-key': t.testKey },
        });
        const what = `${method} ${url}`;
        if (method === 'HEAD') expect(res.statusCode, what).toBe(405);
        else expectError(res, 405, 'method_not_allowed');
        const allow = header(res, 'allow')?.split(/,\s*/) ?? [];
        expect(allow, what).toEqual(expect.arrayContaining(allowedAt(url).filter((m) => m !== 'HEAD')));
        expect(allow, what).not.toContain(method);
        checked.push(what);
      }
    }
    expect(checked).toEqual(
      expect.arrayContaining([
        'DELETE /api/payment-gateway/cqris',
        'PUT /api/api/payment-gateway/cqris',
        'PATCH /api/payment-gateway/cqris',
        'POST /api/api/payment-gateway/cstatus',
      ]),
    );
    // A 405 must not have created anything.
    const list = await t.app.inject({
      method: 'GET',
      url: `${CSTATUS}?limit=100`,
      headers: { 'x-api-key': t.testKey },
    });
    expect(list.json().data.items.filter((i: { amount: number }) => i.amount === 1000)).toHaveLength(0);
  });

  // Moved here: the logged-out page checks of console-transactions, -merchants, -keys, -links, -payments,
  // -webhooks and -audit (their logged-out form posts stay there: they check that nothing was acted on).
  it('sends a logged-out visitor of every non-public console page to the login form, back to that page', async () => {
    const pages = routeTable(t.app).filter(
      (r) =>
        r.method === 'GET' &&
        (r.url === '/dashboard' || r.url.startsWith('/dashboard/')) &&
        r.config.consolePublic !== true,
    );
    expect(pages.map((r) => r.url)).toEqual(
      expect.arrayContaining([
        '/dashboard/transactions',
        '/dashboard/transactions.csv',
        '/dashboard/transactions/:trxid',
        '/dashboard/audit',
      ]),
    );
    for (const route of pages) {
      // With its query too: the login form brings the visitor back to the filtered list it asked for.
      for (const url of [fillParams(route.url, IDS), `${fillParams(route.url, IDS)}?status=unmatched`]) {
        const res = await t.app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(303);
        expect(res.headers.location, url).toBe(`/dashboard?next=${encodeURIComponent(url)}&expired=0`);
      }
    }
  });
});
