// The HTTP server's app, wired: the API's app (src/http), the key-use flusher its guard feeds
// (src/workers), the web's pages (src/web) and the payment sources' routes, in that order. Here rather
// than in src/http, so that the API's layer neither imports the web nor starts a worker.
import type { FastifyInstance } from 'fastify';
import { createApp, mountApi, type AppOptions } from './http/app.js';
import { paymentSourceRoutes } from './http/routes/payment-sources.js';
import { mountConsole, mountPayerPages } from './web/mount.js';
import { startKeyUseFlusher } from './workers/key-use-flusher.js';

export type { AppOptions } from './http/app.js';

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { deps } = options;
  const http = await createApp(options);
  const { app } = http;
  // The keys the guard notes as used are written once a minute and on close, before the database closes.
  const keyUses = startKeyUseFlusher(deps);
  app.addHook('onClose', () => keyUses.stop());
  await mountApi(http, deps);
  await mountPayerPages(app, deps);
  await paymentSourceRoutes(app, deps);
  if (deps.config.consoleEnabled) await mountConsole(app, deps);
  return app;
}
