import type { FastifyRequest } from 'fastify';

// Clients join a base URL ending in /api with paths beginning /api, so /api/api/... must answer as
// /api/... does. Rewriting the URL before routing serves it with the same routes, instead of a second
// copy of every route (which the OpenAPI document and the metrics would then have to tell apart).

// The router decodes percent-escapes before matching ("/api/%61pi/..." reached the second mount too),
// so the letters may come escaped. Only the doubled segment followed by "/", "?" or the end counts:
// "/api/apix" is another path.
const DOUBLED = /^\/(?:a|%61)(?:p|%70)(?:i|%69)\/(?:a|%61)(?:p|%70)(?:i|%69)(?=[/?]|$)/;

/**
 * The URL as the client sent it. Fastify keeps it on the raw request when it rewrites; read there rather
 * than through request.originalUrl, whose getter adds a property to every request object it is read on.
 */
export function sentUrl(request: FastifyRequest): string {
  return (request.raw as { originalUrl?: string }).originalUrl ?? request.url;
}

/** The URL the router sees: "/api/api/x?q" becomes "/api/x?q"; anything else is left as it is. */
export function apiAliasRewrite(url: string): string {
  // Drops the first segment and keeps the rest byte for byte, so the router decodes it as before.
  return DOUBLED.test(url) ? url.slice(url.indexOf('/', 1)) : url;
}
