// What makes the point of sale installable, all public (no session: a browser fetches a manifest, an
// icon or a service worker without the page's cookies in some cases, and none of it is about anyone):
// the web app manifest, its icons, the service worker, the point of sale's style and script, and the
// offline shell the service worker answers with when there is no network.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { html } from '../../../domain/html.js';
import { LANG_COOKIE, pickLang, translator } from '../../../presentation/messages.js';
import { pageSchema } from '../../forms.js';
import { posIconPng } from '../../pos-icon.js';
import { pageFrame } from '../../page-frame.js';
import { consoleAssets, posAssets } from '../../static-assets.js';
import { words } from './pos.words.js';

/** The offline shell's address; the service worker keeps a copy of it. */
export const POS_SHELL = '/dashboard/pos/offline';
const ICON_SIZES = [192, 512] as const;

export function posPublicRoutes(scope: FastifyInstance): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const publicGet = { schema: pageSchema({}), config: { consolePublic: true } };
  const assets = posAssets();
  const consoleFiles = consoleAssets();

  for (const asset of [assets.css, assets.commonJs, assets.js]) {
    app.get(asset.url.slice('/dashboard'.length), publicGet, (_req, reply) => {
      reply.header('Cache-Control', asset.cacheControl).type(asset.type).send(asset.body);
    });
  }

  // Drawn once per gateway, when the routes are registered, not per request.
  const icons = new Map(ICON_SIZES.map((size) => [size, posIconPng(size)]));
  for (const [size, png] of icons) {
    app.get(`/pos/icon-${size}.png`, publicGet, (_req, reply) => {
      reply.header('Cache-Control', 'public, max-age=86400').type('image/png').send(png);
    });
  }

  app.get('/pos/manifest.webmanifest', publicGet, (request, reply) => {
    const t = translator(words, pickLang(request.cookies[LANG_COOKIE], request.headers['accept-language']));
    const manifest = {
      name: t('appName'),
      short_name: t('appShortName'),
      start_url: '/dashboard/pos',
      scope: '/dashboard/pos',
      display: 'standalone',
      orientation: 'portrait',
      background_color: '#ffffff',
      theme_color: '#1a5276',
      icons: ICON_SIZES.map((size) => ({
        src: `/dashboard/pos/icon-${size}.png`,
        sizes: `${size}x${size}`,
        type: 'image/png',
        purpose: 'any',
      })),
    };
    reply
      .header('Cache-Control', 'no-cache')
      .type('application/manifest+json; charset=utf-8')
      .send(JSON.stringify(manifest));
  });

  // At /dashboard/pos-sw.js, so that its scope may be /dashboard/pos (a worker controls only paths under
  // its own folder). The list of files to keep offline is written into it, so a new release (new hashed
  // file names) is a new worker, which replaces the old one and its cache.
  app.get('/pos-sw.js', publicGet, (_req, reply) => {
    const keep = [
      POS_SHELL,
      consoleFiles.css.url,
      assets.css.url,
      assets.commonJs.url,
      assets.js.url,
      '/dashboard/pos/icon-192.png',
    ];
    const header = `const SHELL = ${JSON.stringify(POS_SHELL)};\nconst KEEP = ${JSON.stringify(keep)};\n`;
    reply
      .header('Cache-Control', 'no-cache')
      .header('Service-Worker-Allowed', '/dashboard/pos')
      .type('text/javascript; charset=utf-8')
      .send(header + assets.worker.toString('utf8'));
  });

  // The page the service worker shows in place of the point of sale when the network is down: the frame
  // of the keypad with the offline state, in both languages (it is stored once, whatever the language).
  app.get('/pos/offline', publicGet, (_req, reply) => {
    const en = translator(words, 'en');
    const id = translator(words, 'id');
    const page = pageFrame({
      lang: 'id',
      title: `${id('title')} · qris-gateway`,
      stylesheets: [consoleFiles.css.url, assets.css.url],
      scripts: [assets.commonJs.url, assets.js.url],
      head: html`<link rel="manifest" href="/dashboard/pos/manifest.webmanifest">`,
      body: html`<header class="top"><a class="brand" href="/dashboard/pos">qris-gateway</a></header>
<main id="content">
<div class="pos" data-page="offline">
<h1>${id('offline')} <span lang="en">/ ${en('offline')}</span></h1>
<p class="notice pos-offline-shell" role="status">${id('offlineText')}</p>
<p class="notice" lang="en">${en('offlineText')}</p>
<a class="button" href="/dashboard/pos">${id('retry')} <span lang="en">/ ${en('retry')}</span></a>
</div>
</main>`,
    });
    reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(page);
  });
}
