// A reference point for the status read, not the gateway: the least work any Fastify 5 app must do to
// answer an authenticated read of one stored transaction, with the gateway's production choices for each
// part. Per request: the API key's SHA-256 looked up in a map, one SQLite read by primary key of a row
// shaped like the gateway's (WAL, as many rows as the gateway's scenario reads, its own file), the row as JSON, three response headers,
// and one pino access line written asynchronously to a file. No ownership check, presentation, metrics,
// rate limiting or URL redaction. Measured in the same run as the baseline, its ratio tells how much of
// the distance between the gateway and the bare route is the work itself rather than the gateway.
//
//   node scripts/bench-floor.mjs DIR ROWS KEY   (prints "listening PORT"; ids are trx_floor0 .. trx_floor<ROWS-1>)
import { hash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify, { LogController } from 'fastify';
import pino from 'pino';

const [dir, rowsArg, apiKey] = process.argv.slice(2);
const ROWS = Number(rowsArg);
if (!dir || !(ROWS > 0) || !apiKey) throw new Error('usage: bench-floor.mjs DIR ROWS KEY');

const db = new Database(join(dir, 'floor.db'));
db.pragma('journal_mode = WAL');
db.exec(`create table if not exists transactions (id text primary key, merchant_id text not null, mode text not null,
  status text not null, amount bigint not null, unique_code integer not null, total_amount bigint not null, currency text not null,
  email text, ref text, qris text not null, created_at bigint not null, expires_at bigint not null, paid_at bigint, paid_late integer not null,
  payment_id text, updated_at bigint not null, source_id text, acquirer_reference text)`);
const insert = db.prepare(`insert or replace into transactions values (?, 'mch_floor', 'live', 'pending', ?, ?, ?, 'IDR', null, null, ?, ?, ?, null, 0, null, ?, null, null)`);
// A dynamic QRIS of realistic length (the response carries it), not a valid one: nothing parses it here.
const payload = '00020101021226610014COM.GO-JEK.WWW01189360091437811475380210G7811475380303UMI51440014ID.CO.QRIS.WWW0215ID10243341364120303UMI5204541153033605405100055802ID5909Toko Test6007Jakarta61051234062070703A0163046C2B';
const now = Date.now();
db.transaction(() => {
  for (let i = 0; i < ROWS; i++) insert.run(`trx_floor${i}`, 10_000 + i, 1 + (i % 999), 10_001 + i + (i % 999), payload, now, now + 3_600_000, now);
})();
const byId = db.prepare('select * from transactions where id = ?');

const keys = new Map([[hash('sha256', apiKey, 'hex'), { merchantId: 'mch_floor', mode: 'live' }]]);
const logger = pino({ level: 'info' }, pino.destination({ dest: join(dir, 'floor.log'), sync: false }));
const app = Fastify({ loggerInstance: logger, logController: new LogController({ disableRequestLogging: true }) });

app.addHook('onSend', (request, reply, _payload, done) => {
  reply.header('X-Request-Id', request.id);
  reply.header('X-Api-Version', '1.0.0');
  reply.header('Cache-Control', 'no-store');
  done();
});
app.addHook('onResponse', (request, reply, done) => {
  request.log.info({ method: request.method, url: request.url, status: reply.statusCode, ms: reply.elapsedTime }, 'request');
  done();
});
app.get('/api/payment-gateway/cstatus', {
  schema: { querystring: { type: 'object', properties: { trxid: { type: 'string' }, apikey: { type: 'string' } } } },
  handler: async (request, reply) => {
    const key = request.headers['x-api-key'];
    const principal = typeof key === 'string' ? keys.get(hash('sha256', key, 'hex')) : undefined;
    if (!principal) return reply.code(401).send({ success: false });
    const row = byId.get(request.query.trxid);
    if (!row) return reply.code(404).send({ success: false });
    return { success: true, data: row };
  },
});

await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening ${app.server.address().port}\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.stdin.on('end', stop).resume();
