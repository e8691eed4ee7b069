import type { FastifyInstance, RouteOptions } from 'fastify';

/** One route as the app registered it: the tests that hold for every route are driven from these. */
export interface RouteEntry {
  method: string;
  /** The full path with its prefix, Fastify's pattern syntax (`/dashboard/merchants/:id`). */
  url: string;
  /** Hidden from the OpenAPI document (pages, the second API mount, refusals of other methods). */
  hidden: boolean;
  /** The route's `config`, where the console marks its public routes (`consolePublic`). */
  config: Readonly<Record<string, unknown>>;
  /** Which parts of the request the route's schema declares (every page route declares what it reads: web/forms.ts). */
  declares: { params: boolean; querystring: boolean; body: boolean };
}

const tables = new WeakMap<FastifyInstance, RouteEntry[]>();

/**
 * Starts recording every route registered on `app` from now on, in every scope (an `onRoute` hook on the
 * root is inherited by the scopes registered after it). Called first thing in buildApp, so the table is
 * complete: a new route is in it the day it is added, and so in every test that walks it.
 */
export function recordRoutes(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  tables.set(app, table);
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const schema = route.schema as
      | { hide?: boolean; params?: unknown; querystring?: unknown; body?: unknown }
      | undefined;
    const declares = {
      params: schema?.params !== undefined,
      querystring: schema?.querystring !== undefined,
      body: schema?.body !== undefined,
    };
    for (const method of methods) {
      table.push({
        method: String(method).toUpperCase(),
        url: route.url,
        hidden: schema?.hide === true,
        config: (route.config ?? {}) as Record<string, unknown>,
        declares,
      });
    }
  });
}

/** Every route of an app built by buildApp, in the order they were registered (HEAD twins included). */
export function routeTable(app: FastifyInstance): readonly RouteEntry[] {
  const table = tables.get(app);
  if (!table) throw new Error('this app does not record its routes (build it with buildApp)');
  return table;
}
