// @ts-check
// The ceiling the gateway is measured against: a bare Fastify 5 route in its own process with a
// querystring schema like the gateway's create route, the logger off, answering a small JSON object.
// It does no I/O, so its req/s is what the framework plus Node's HTTP stack can do on this machine.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/api/payment-gateway/cqris', {
  schema: {
    querystring: {
      type: 'object',
      properties: { amount: { type: 'string' }, apikey: { type: 'string' } },
      required: ['amount'],
    },
  },
  handler: async (request) => ({
    success: true,
    data: { amount: /** @type {{ amount: string }} */ (request.query).amount, status: 'pending' },
  }),
});

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
// The parent reads the port from this line.
process.stdout.write(`listening ${/** @type {import('node:net').AddressInfo} */ (app.server.address()).port}\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
// Never outlive the parent: if it dies without signalling us, stdin closes.
process.stdin.on('end', stop).resume();
