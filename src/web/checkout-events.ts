import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { clientAddressKey } from '../domain/client-address.js';
import { AppError } from '../domain/errors.js';
import { parseTrxid } from '../http/params.js';
import type { Deps } from '../services/deps.js';
import type { StatusWatch, Watching } from '../services/transactions/status-watch.js';
import { StatusStream } from './status-stream.js';
import { StreamSlots } from './stream-slots.js';
import { Params, Segment, pageSchema } from './forms.js';

/**
 * GET /checkout/:trxid/events: the page's live status as server-sent events. The current status at
 * once, then each change the status watch hears of (from any process), ending at a final status or at
 * expiry. Streams are capped per client address, per transaction and in total (stream-slots.ts); a
 * refused page polls GET /checkout/:trxid/status instead.
 */
export function checkoutEventRoutes(app: FastifyInstance, deps: Deps, watch: StatusWatch): void {
  const { config } = deps;
  const slots = new StreamSlots({
    perAddress: config.checkoutStreamsPerAddress,
    perTransaction: config.checkoutStreamsPerTransaction,
    total: config.checkoutStreamsTotal,
  });
  const streams = new Set<StatusStream>();
  // One timer for every stream rather than one each.
  const heartbeat = setInterval(() => {
    for (const stream of streams) stream.heartbeat();
  }, config.checkoutHeartbeatSeconds * 1000);
  heartbeat.unref();
  // Open streams are ended before the server closes, or a shutdown would wait for every payer to leave.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    clearInterval(heartbeat);
    for (const stream of [...streams]) stream.close();
  });

  app
    .withTypeProvider<TypeBoxTypeProvider>()
    .get(
      '/checkout/:trxid/events',
      { schema: pageSchema({ params: Params({ trxid: Segment() }) }), config: { longLived: true } },
      async (request, reply) => {
        const trxid = parseTrxid(request.params.trxid, true)!;
        // request.ip is the proxy's client address only with TRUST_PROXY (Fastify's trustProxy).
        const slot = slots.take(clientAddressKey(request.ip), trxid);
        let watching: Watching | null = null;
        const stream = new StatusStream(() => {
          streams.delete(stream);
          watching?.stop();
          slot.release();
        });
        try {
          watching = await watch.watch(trxid, (snapshot) => stream.offer(snapshot));
        } catch (err) {
          stream.close();
          throw err;
        }
        if (closing) {
          stream.close();
          throw new AppError('service_unavailable', 'the server is shutting down', { retryAfter: 1 });
        }
        stream.offer(watching.snapshot);
        reply.hijack();
        const raw = reply.raw;
        // The client may have left while the status was read; its close event has then already fired.
        if (raw.destroyed || !raw.socket || raw.socket.destroyed) {
          stream.close();
          raw.destroy();
          return;
        }
        streams.add(stream);
        stream.open(raw, request.id);
        // HEAD: the headers are the whole answer. Node holds them back until a body write or the end, and
        // writes no body for HEAD, so a stream left open would never answer and would keep its slot.
        if (request.method === 'HEAD') stream.close();
      },
    );
}
