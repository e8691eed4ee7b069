import type { Config } from '../settings/all.js';

/**
 * Fastify options for the server's timeouts (HTTP_*_TIMEOUT_MS), so that slow and idle connections
 * cannot pile up. Node checks header and request times on a timer (every 30 s by default); here it runs
 * every second, or more often for a shorter header timeout, so a slow client is cut within about a
 * second of its time.
 */
export function timeoutOptions(config: Config) {
  return {
    keepAliveTimeout: config.httpKeepAliveTimeoutMs,
    requestTimeout: config.httpRequestTimeoutMs,
    http: {
      headersTimeout: config.httpHeadersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, config.httpHeadersTimeoutMs),
    },
  };
}
