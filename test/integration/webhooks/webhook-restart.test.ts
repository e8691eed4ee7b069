// The outbox survives a crash: a gateway process (the real entry point, bin/qris-gateway.mjs) accepts
// payments and is SIGKILLed before its dispatcher sends them; the next process delivers each event
// exactly once.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.js';
import { openDatabase } from '../../../src/storage/database.js';
import { verifyWebhookSignature } from '../../../src/index.js';
import { freshDatabaseUrl, vectors } from '../../helpers/context.js';
import { childEnv } from '../../helpers/processes.js';
import { Receiver } from '../../helpers/receiver.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const bin = join(root, 'bin', 'qris-gateway.mjs');

class Gateway {
  readonly child: ChildProcess;
  output = '';
  readonly exited: Promise<void>;
  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, [bin, 'serve'], {
      cwd: root,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.setEncoding('utf8').on('data', (c: string) => (this.output += c));
    this.child.stderr!.setEncoding('utf8').on('data', (c: string) => (this.output += c));
    this.exited = new Promise((resolve) => this.child.on('close', () => resolve()));
  }
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }
  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    if (this.running) this.child.kill(signal);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

async function waitFor<T>(
  what: string,
  gateway: Gateway | null,
  check: () => Promise<T | null>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => null);
    if (value !== null) return value;
    if (gateway && !gateway.running) throw new Error(`gateway exited while waiting for ${what}:\n${gateway.output}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${gateway?.output ?? ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let dir: string;
let databaseUrl: string;
let drop: () => Promise<void>;
const gateways: Gateway[] = [];
let receiver: Receiver | null = null;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'qg-webhook-restart-'));
  ({ url: databaseUrl, drop } = await freshDatabaseUrl(dir));
});
afterAll(async () => {
  for (const g of gateways) g.kill();
  await Promise.all(gateways.map((g) => g.exited));
  await receiver?.close();
  await drop();
  rmSync(dir, { recursive: true, force: true });
});

async function cliJson(env: Record<string, string>, ...argv: string[]): Promise<Record<string, any>> {
  const out: string[] = [];
  const code = await runCli([...argv, '--json'], { out: (s) => void out.push(s), err: (s) => void out.push(s) }, env);
  expect(code, out.join('')).toBe(0);
  return JSON.parse(out.join(''));
}

describe('webhooks across a crash', () => {
  it('events of a SIGKILLed gateway are delivered once, by the next process', async () => {
    const receiverPort = await freePort();
    const base = {
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      DEMO_MERCHANT: 'false',
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8',
    };
    const merchant = await cliJson(
      base,
      'merchant',
      'add',
      '--name',
      'Crash Test',
      '--qris',
      vectors.vectors[0]!.static,
    );
    const { key } = await cliJson(base, 'key', 'create', '--merchant', merchant.id, '--mode', 'test');
    const endpoint = await cliJson(
      base,
      'webhooks',
      'add',
      '--merchant',
      merchant.id,
      '--url',
      `http://127.0.0.1:${receiverPort}/hook`,
    );

    // The first process polls for deliveries once at start and then only hourly, so it surely dies
    // with every event of this test still in its outbox.
    const portA = await freePort();
    const a = new Gateway({ ...base, PORT: String(portA), WEBHOOK_DISPATCH_INTERVAL_MS: '3600000' });
    gateways.push(a);
    const apiA = `http://127.0.0.1:${portA}/api/payment-gateway`;
    await waitFor(
      'the first gateway',
      a,
      async () => ((await fetch(`http://127.0.0.1:${portA}/healthz`)).ok ? true : null),
      150_000,
    );

    const trxids: string[] = [];
    for (const amount of [11_000, 12_000, 13_000, 14_000]) {
      const created = await fetch(`${apiA}/cqris?amount=${amount}`, { headers: { 'X-Api-Key': key } });
      expect(created.status).toBe(200);
      const { trxid } = ((await created.json()) as { data: { trxid: string } }).data;
      const paid = await fetch(`${apiA}/simulate?trxid=${trxid}`, { method: 'POST', headers: { 'X-Api-Key': key } });
      expect(paid.status).toBe(200);
      trxids.push(trxid);
    }
    a.kill('SIGKILL');
    await a.exited;

    const database = openDatabase(databaseUrl);
    try {
      const events = await database
        .selectFrom('events')
        .select(['id', 'payload'])
        .where('transaction_id', 'in', trxids)
        .execute();
      expect(events).toHaveLength(trxids.length);
      const queued = await database.selectFrom('deliveries').selectAll().execute();
      expect(queued.map((d) => [d.status, d.attempts])).toEqual(events.map(() => ['pending', 0]));

      // The receiver comes up, then a new gateway process.
      receiver = await Receiver.start(receiverPort);
      const portB = await freePort();
      // At debug level its dispatcher logs each pass it completes, which this test counts.
      const b = new Gateway({ ...base, PORT: String(portB), WEBHOOK_DISPATCH_INTERVAL_MS: '100', LOG_LEVEL: 'debug' });
      const passes = () => b.output.split('"msg":"webhook dispatch pass"').length - 1;
      gateways.push(b);
      await waitFor(
        'every event at the receiver',
        b,
        async () => (new Set(receiver!.eventIds()).size >= events.length ? true : null),
        150_000,
      );
      await waitFor(
        'the deliveries to be recorded',
        b,
        async () =>
          (await database.selectFrom('deliveries').select('status').where('status', '!=', 'succeeded').execute())
            .length === 0
            ? true
            : null,
        10_000,
      );
      // Five more passes of the dispatcher, each begun after every delivery was recorded: nothing is sent twice.
      const recorded = passes();
      await waitFor('five more dispatcher passes', b, async () => (passes() >= recorded + 6 ? true : null), 30_000);
      expect([...receiver.eventIds()].sort()).toEqual(events.map((e) => e.id).sort());
      for (const req of receiver.requests) {
        const event = events.find((e) => e.id === req.headers['x-event-id'])!;
        expect(req.body).toBe(event.payload);
        expect(
          verifyWebhookSignature({
            payload: req.body,
            header: String(req.headers['x-signature']),
            secret: endpoint.secret,
          }),
        ).toBe(true);
      }

      b.kill('SIGTERM');
      await b.exited;
    } finally {
      await database.close();
    }
  }, 240_000);
});
