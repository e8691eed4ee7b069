// How the HTTP server closes without cutting a request: see keepConnectionsOnClose and drainOnClose.
import net from 'node:net';
import type http from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../domain/errors.js';

/**
 * Fastify's own closing steps would answer with a body outside the envelope (drainOnClose's 503
 * replaces it) or destroy idle connections (see keepConnectionsOnClose).
 */
export const closeOptions = { return503OnClosing: false, forceCloseConnections: false } as const;

/**
 * Node's server.close() destroys every idle keep-alive connection at once. An idle connection is the
 * very one a client may be sending its next request on at that moment: the request is lost and the
 * client sees a reset, and cannot tell whether its create was made. So close() here only stops
 * accepting connections, and each open one ends the way it always does:
 * - a request received, or arriving now, is answered with `Connection: close` (drainOnClose), after
 *   which Node closes the connection;
 * - an idle connection is closed when its keep-alive time runs out, as every client was told in
 *   `Keep-Alive: timeout=N`, so none sends on it by then;
 * - a connection sending nothing, or too slowly, is cut by the header and request timeouts, which go on.
 * Once the last connection is gone, Node's own close runs (nothing is left for it to cut) to stop its
 * timeout checks; it announces 'close' once more, which at most repeats Fastify's close of a second
 * listening server (HOST=localhost binds both loopback addresses; that second one keeps Node's close).
 */
export function keepConnectionsOnClose(server: http.Server): void {
  const nodeClose = server.close.bind(server);
  server.close = (callback?: (err?: Error) => void) => {
    net.Server.prototype.close.call(server, callback);
    server.once('close', () => nodeClose());
    return server;
  };
}

/**
 * From the moment the app begins to close, every response says `Connection: close`, and a request that
 * arrives on a connection still open is refused with 503 `service_unavailable` (nothing done, safe to
 * retry): readiness probes fail, a load balancer moves on, and no new work (nor a status stream) starts.
 * A request that was already received is served as usual. The app's own first onRequest and onSend
 * hooks call these (one flag test each, rather than two more hooks on every request).
 */
export function drainOnClose(app: FastifyInstance) {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  return {
    /** The error a request arriving now is refused with, or null while the app is open. */
    refusal(reply: FastifyReply): AppError | null {
      if (!closing) return null;
      reply.header('Connection', 'close');
      return new AppError('service_unavailable', 'the server is shutting down; retry the request', { retryAfter: 1 });
    },
    markResponse(reply: FastifyReply): void {
      if (closing) reply.header('Connection', 'close');
    },
  };
}
