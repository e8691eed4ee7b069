// SIGTERM to a real gateway process (bin/qris-gateway.mjs serve): every request it received is answered,
// nothing acknowledged is lost, and the process is gone within SHUTDOWN_TIMEOUT_MS even when a request
// or a webhook send hangs.
import { newServiceState } from '../../../src/services/state.js';
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import type { Deps } from '../../../src/services/deps.js';
import { codeIssuers } from '../../../src/payment-sources/issuers.js';
import { silentLogger } from '../../../src/http/logger.js';
import { sourceCatalog } from '../../../src/payment-sources/kinds.js';
import { addWebhookEndpoint } from '../../../src/services/webhooks/add-webhook-endpoint.js';
import { openDatabase, type Database } from '../../../src/storage/database.js';
import { migrateToLatest } from '../../../src/storage/migrate.js';
import { runCreateLoad, type Outcome } from '../../helpers/create-load.js';
import { freshDatabaseUrl, seedMerchant, type Seeded } from '../../helpers/context.js';
import { startGateway, type GatewayProcess } from '../../helpers/processes.js';
import { Receiver } from '../../helpers/receiver.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dir: string;
let databaseUrl: string;
let drop: () => Promise<void>;
let database: Database;
let deps: Deps;
let seeded: Seeded;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'qg-shutdown-'));
  ({ url: databaseUrl, drop } = await freshDatabaseUrl(dir));
  database = openDatabase(databaseUrl);
  await migrateToLatest(database, database.dialect);
  deps = {
    db: database,
    config: loadConfig({ DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8' }),
    now: Date.now,
    logger: silentLogger(),
    issuers: codeIssuers,
    sources: sourceCatalog,
    state: newServiceState(),
  };
  seeded = await seedMerchant(deps);
}, 60_000);

afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.stop('SIGKILL')));
});

afterAll(async () => {
  await database?.close();
  await drop?.();
  rmSync(dir, { recursive: true, force: true });
});

async function gateway(env: Record<string, string> = {}): Promise<GatewayProcess> {
  const g = await startGateway({
    DATABASE_URL: databaseUrl,
    DEMO_MERCHANT: 'false',
    RATE_LIMIT_PER_MINUTE: '0',
    DATABASE_POOL_SIZE: '5',
    ...env,
  });
  gateways.push(g);
  return g;
}

/** Sends SIGTERM and resolves with the exit code and how long the process took to go. */
async function terminate(g: GatewayProcess): Promise<{ code: number | null; ms: number }> {
  const sent = Date.now();
  const code = await g.stop('SIGTERM');
  return { code, ms: Date.now() - sent };
}

describe('SIGTERM', () => {
  it('under 32 keep-alive connections of creates: every request is answered, every 2xx create is stored', async () => {
    const g = await gateway({ SHUTDOWN_TIMEOUT_MS: '8000' });
    let giveUp!: () => void;
    // SIGTERM goes once this many creates are acknowledged, so it lands in the middle of the load
    // however fast this machine is.
    const beforeSignal = 100;
    let reached!: () => void;
    const loaded = new Promise<void>((r) => (reached = r));
    let acknowledged = 0;
    const onOutcome = (o: Outcome) => {
      if (o.kind === 'created' && ++acknowledged === beforeSignal) reached();
    };
    const load = runCreateLoad({
      base: g.url,
      key: seeded.testKey,
      connections: 32,
      until: new Promise<void>((r) => (giveUp = r)),
      onOutcome,
    });
    const safety = setTimeout(giveUp, 30_000);
    await Promise.race([loaded, load]);
    expect(acknowledged, g.output()).toBeGreaterThanOrEqual(beforeSignal);
    const exit = await terminate(g);
    const report = await load;
    clearTimeout(safety);
    const counts = {
      created: report.count('created'),
      refused503: report.count('refused-503'),
      refusedConnect: report.count('refused-connect'),
      refusedBacklog: report.count('refused-backlog'),
      reset: report.count('reset'),
      other: report.count('other'),
    };
    console.log(
      `shutdown under load (${databaseUrl.startsWith('sqlite') ? 'sqlite' : 'postgres'}): ${JSON.stringify(counts)}, exited in ${exit.ms} ms`,
    );
    const broken = report.outcomes.filter((o) => o.kind === 'reset' || o.kind === 'other');
    expect(broken, g.output()).toEqual([]);
    expect(counts.created).toBeGreaterThanOrEqual(beforeSignal);
    // Every loop ends on a refused connection: the server stopped listening and then went away (a loop
    // whose new connection waited in the listen backlog as the listener closed ends on its reset).
    expect(counts.refusedConnect + counts.refusedBacklog).toBe(32);
    // 0, not 1: it drained before SHUTDOWN_TIMEOUT_MS cut it short (stop-on-signal.ts).
    expect(exit.code).toBe(0);
    expect(g.output()).not.toContain('shutdown did not finish');

    // Each acknowledged create is there for the next process.
    const next = await gateway();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const missing: string[] = [];
    const queue = [...report.created];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let trxid = queue.pop(); trxid !== undefined; trxid = queue.pop()) {
          const status = await statusOf(agent, next.url, seeded.testKey, trxid);
          if (status !== 200) missing.push(`${trxid}: ${status}`);
        }
      }),
    );
    agent.destroy();
    expect(missing).toEqual([]);
  }, 120_000);

  it('a request sent on an idle keep-alive connection after SIGTERM is answered: 503 with Connection: close', async () => {
    const g = await gateway({ SHUTDOWN_TIMEOUT_MS: '8000' });
    const port = Number(new URL(g.url).port);
    const socket = net.connect(port, '127.0.0.1');
    const reader = responses(socket);
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const first = await reader.next();
    expect(first.status).toBe(200);
    expect(first.headers.connection).toBe('keep-alive');

    g.child.kill('SIGTERM');
    // Once new connections are refused, the server is closing; the idle one must still be open.
    await expect.poll(() => refused(port), { timeout: 5000, interval: 20 }).toBe(true);
    socket.write(
      `GET /api/payment-gateway/cqris?amount=5000 HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${seeded.testKey}\r\n\r\n`,
    );
    const second = await reader.next();
    expect(second.status).toBe(503);
    expect(second.headers.connection).toBe('close');
    expect(second.headers['retry-after']).toBe('1');
    expect(JSON.parse(second.body).error.code).toBe('service_unavailable');
    await reader.ended;
    // (No second signal: that would end it at once.)
    const code = g.child.exitCode ?? (await new Promise<number | null>((r) => g.child.once('exit', (c) => r(c))));
    expect(code).toBe(0);
  }, 60_000);

  it('exits within SHUTDOWN_TIMEOUT_MS while a request is still arriving', async () => {
    const g = await gateway({ SHUTDOWN_TIMEOUT_MS: '1500' });
    const port = Number(new URL(g.url).port);
    // A create whose body never completes: the request stays in flight.
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(
      `POST /api/payment-gateway/cqris HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${seeded.testKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"amount":`,
    );
    await sleep(300);
    const exit = await terminate(g);
    socket.destroy();
    // It waited out its grace, then was cut short by the timeout, and said so (the request never ends, so
    // nothing else could have ended the process).
    expect(exit.ms, g.output()).toBeGreaterThanOrEqual(1500);
    expect(exit.code).toBe(1);
    expect(g.output()).toContain('shutdown did not finish within SHUTDOWN_TIMEOUT_MS');
  }, 60_000);

  it('exits within SHUTDOWN_TIMEOUT_MS while a webhook send hangs', async () => {
    const receiver = await Receiver.start();
    receiver.respond = () => ({ status: 200, hang: true });
    try {
      await addWebhookEndpoint(deps, {
        merchantId: seeded.merchant.id,
        url: receiver.url(),
        events: ['transaction.paid'],
      });
      const g = await gateway({
        SHUTDOWN_TIMEOUT_MS: '1500',
        WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8',
        WEBHOOK_TIMEOUT_MS: '60000',
        WEBHOOK_DISPATCH_INTERVAL_MS: '50',
      });
      const headers = { 'x-api-key': seeded.testKey };
      const created = (await (await fetch(`${g.url}/api/payment-gateway/cqris?amount=7000`, { headers })).json()) as {
        data: { trxid: string };
      };
      expect(
        (await fetch(`${g.url}/api/payment-gateway/simulate?trxid=${created.data.trxid}`, { method: 'POST', headers }))
          .status,
      ).toBe(200);
      await expect.poll(() => receiver.requests.length, { timeout: 10_000 }).toBeGreaterThan(0);
      const exit = await terminate(g);
      // Waited out its grace, then cut short by the timeout (the send hangs for good, its own timeout is 60 s).
      expect(exit.ms, g.output()).toBeGreaterThanOrEqual(1500);
      expect(exit.code).toBe(1);
      expect(g.output()).toContain('shutdown did not finish within SHUTDOWN_TIMEOUT_MS');
    } finally {
      await receiver.close();
    }
  }, 60_000);
});

function statusOf(agent: http.Agent, base: string, key: string, trxid: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}/api/payment-gateway/cstatus?trxid=${trxid}`, { agent, headers: { 'x-api-key': key } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

/** True once a new connection to the port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Reads HTTP/1.1 responses (Content-Length bodies) one after another off a raw socket. */
function responses(socket: net.Socket): { next(): Promise<RawReply>; ended: Promise<void> } {
  let buffer = '';
  let wake: (() => void) | null = null;
  const ended = new Promise<void>((resolve) => socket.once('end', () => resolve()));
  socket.on('error', () => {});
  socket.setEncoding('latin1').on('data', (chunk: string) => {
    buffer += chunk;
    wake?.();
  });
  const take = (): RawReply | null => {
    const split = buffer.indexOf('\r\n\r\n');
    if (split === -1) return null;
    const [statusLine, ...lines] = buffer.slice(0, split).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const i = line.indexOf(':');
      headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (buffer.length < split + 4 + length) return null;
    const body = buffer.slice(split + 4, split + 4 + length);
    buffer = buffer.slice(split + 4 + length);
    return { status: Number(statusLine!.split(' ')[1]), headers, body };
  };
  return {
    ended,
    async next() {
      for (;;) {
        const reply = take();
        if (reply) return reply;
        await Promise.race([
          new Promise<void>((r) => (wake = r)),
          ended.then(() => Promise.reject(new Error(`closed before a response: ${buffer}`))),
        ]);
      }
    },
  };
}
