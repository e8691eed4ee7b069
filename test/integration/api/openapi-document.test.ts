import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../../../src/http/route-table.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';

// The OpenAPI document (/openapi.json) as client generators read it (issue 39): every operation named by a
// stable operationId (a rename changes test/fixtures/openapi-operation-ids.json, on purpose), a server, a
// license. `npm run lint:openapi` checks the whole of it with Redocly's recommended rules.
const FIXTURE = new URL('../../fixtures/openapi-operation-ids.json', import.meta.url);
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Operation {
  operationId?: string;
  responses?: Record<string, unknown>;
}
interface Document {
  info: { license?: { name: string; identifier?: string } };
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
}

/** Every operation of the document, keyed `GET /path` or `webhook <event>`. */
function operations(doc: Document): Map<string, Operation> {
  const found = new Map<string, Operation>();
  for (const [key, items] of [
    ['', doc.paths],
    ['webhook', doc.webhooks],
  ] as const) {
    for (const [path, item] of Object.entries(items)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (operation) found.set(key === '' ? `${method.toUpperCase()} ${path}` : `${key} ${path}`, operation);
      }
    }
  }
  return found;
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: Document;
  beforeAll(async () => {
    t = await createTestApp({ CONSOLE: 'true' });
    doc = (await t.app.inject({ url: '/openapi.json' })).json() as Document;
  });
  afterAll(async () => t.close());

  it('names every operation, each once, by the operationIds the fixture lists', () => {
    const ops = operations(doc);
    const ids = [...ops.values()].map((op) => op.operationId);
    for (const [key, op] of ops) expect(op.operationId, key).toMatch(/^[a-z][A-Za-z]+$/);
    expect(new Set(ids).size).toBe(ids.length);
    const named = Object.fromEntries([...ops].map(([key, op]) => [key, op.operationId]));
    expect(named, 'an operationId changed: update test/fixtures/openapi-operation-ids.json if that is meant').toEqual(
      JSON.parse(readFileSync(FIXTURE, 'utf8')),
    );
  });

  it('documents every route of the route table that is not hidden', () => {
    const documented = new Set(operations(doc).keys());
    // HEAD twins of GET routes are left out of the document (@fastify/swagger's default).
    const routes = routeTable(t.app).filter((r) => !r.hidden && r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(0);
    for (const r of routes)
      expect(documented, `${r.method} ${r.url}`).toContain(`${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`);
    expect(routes.length).toBe(Object.keys(doc.paths).reduce((n, path) => n + Object.keys(doc.paths[path]!).length, 0));
  });

  it('documents a 4xx answer of every path operation', () => {
    for (const [key, op] of operations(doc)) {
      if (!key.startsWith('webhook ')) expect(Object.keys(op.responses ?? {}), key).toContain('4XX');
    }
  });

  it('names the server at PUBLIC_BASE_URL and the license of package.json', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: t.config.publicBaseUrl })]);
    expect(t.config.publicBaseUrl).toBe('http://gateway.test');
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      license: string;
    };
    expect(doc.info.license).toEqual({ name: pkg.license, identifier: pkg.license });
  });

  it("gives the docs page's copy its own origin as the first server", async () => {
    const copy = (await t.app.inject({ url: '/docs/json' })).json() as Document;
    expect(copy.servers?.map((s) => s.url)).toEqual(['/', t.config.publicBaseUrl]);
    expect(copy.paths).toEqual(doc.paths);
  });
});
