import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../../src/config.js';
import { serve, type RunningServer } from '../../../src/server.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { seedMerchant } from '../../helpers/context.js';

const quiet = pino({ level: 'silent' });

describe('serve --role', () => {
  const running: RunningServer[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const s of running.splice(0)) {
      // No request is on its way: the fetch's idle connection need not wait out its keep-alive time.
      s.app?.server.closeIdleConnections();
      await s.stop();
    }
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function config() {
    const dir = mkdtempSync(join(tmpdir(), 'qg-role-'));
    dirs.push(dir);
    return loadConfig({
      DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`,
      PORT: '0',
      SWEEP_INTERVAL_MS: '100',
      DEMO_MERCHANT: 'false',
    });
  }

  async function dueTransaction(server: RunningServer) {
    const { merchant } = await seedMerchant(server.runtime.deps);
    const { transaction } = await createTransaction(
      { ...server.runtime.deps, now: () => Date.now() - 3_600_000 },
      {
        merchantId: merchant.id,
        mode: 'test',
        amount: 5000,
        email: null,
        ref: null,
        expiresInSeconds: 60,
        idempotency: null,
      },
    );
    return transaction.id;
  }

  async function storedStatus(server: RunningServer, id: string) {
    const row = await server.runtime.deps.db
      .selectFrom('transactions')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return row.status;
  }

  it('worker: serves no HTTP and sweeps expired transactions', async () => {
    const server = await serve(config(), { role: 'worker', logger: quiet, print: () => {} });
    running.push(server);
    expect(server.app).toBeNull();
    expect(server.jobs).toContain('expiry-sweeper');
    const id = await dueTransaction(server);
    await expect.poll(() => storedStatus(server, id), { timeout: 5000 }).toBe('expired');
  });

  // What the process started, as it reports it, rather than a wait in which the sweeper might have run.
  it('api: serves HTTP and leaves sweeping (every background job) to the workers', async () => {
    const server = await serve(config(), { role: 'api', logger: quiet, print: () => {} });
    running.push(server);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(server.jobs).toEqual([]);
  });

  it('all (the default): serves HTTP and runs every job a worker runs', async () => {
    const worker = await serve(config(), { role: 'worker', logger: quiet, print: () => {} });
    running.push(worker);
    const all = await serve(config(), { logger: quiet, print: () => {} });
    running.push(all);
    expect((await fetch(`${all.url}/healthz`)).status).toBe(200);
    expect(all.jobs).toEqual(worker.jobs);
    expect(all.jobs).toEqual(
      expect.arrayContaining(['expiry-sweeper', 'webhook-dispatcher', 'notify-dispatcher', 'mailer']),
    );
  });
});
