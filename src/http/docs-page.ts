// The API's docs page (/docs): Swagger UI, served by @fastify/swagger-ui. The plugin's page has no
// viewport tag, so a phone lays it out 980 px wide and shrinks it to fit; the plugin has no option for
// the page's head (its `theme` adds files: title, CSS, scripts, icons), so the page gets the tag on its
// way out, in a scope of its own that holds only the docs' routes.
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

const VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">';

/** The docs' HTML with the viewport tag as the head's first element (its other answers pass as they are). */
export function withViewport(page: string): string {
  return page.includes('name="viewport"') ? page : page.replace(/<head>/i, `<head>\n${VIEWPORT}`);
}

/**
 * The page's copy of the document lists first the origin it is served from: its "Try it out" then reaches
 * this gateway, also when PUBLIC_BASE_URL (the document's server) is unset or names another host.
 */
export function withOwnOriginFirst(spec: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const servers = Array.isArray(spec.servers) ? spec.servers : [];
  return { ...spec, servers: [{ url: '/', description: 'Where this page is served from' }, ...servers] };
}

export async function registerDocsPage(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply, payload) => {
      const type = reply.getHeader('content-type');
      return typeof payload === 'string' && typeof type === 'string' && type.startsWith('text/html')
        ? withViewport(payload)
        : payload;
    });
    await scope.register(swaggerUi, { routePrefix: '/docs', transformSpecification: withOwnOriginFirst });
  });
}
