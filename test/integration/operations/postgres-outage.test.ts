// PostgreSQL goes away and comes back while a gateway serves a load of creates, payments and cancels.
// The server is the test's own (helpers/pg-cluster.ts: initdb and pg_ctl on a free port), so killing it
// disturbs nothing else. Faults, in order: pg_terminate_backend on the gateway's connections mid-load,
// then `pg_ctl stop -m immediate` (every backend killed, as in a crash) with the load still running, then
// a start, then SIGSTOP on every server process for 3 s (a server that answers nothing) and SIGCONT.
// What must hold: every request is answered (never a hang, a dropped connection or a 500);
// while the database is away the answer is 503 `database_unavailable`; /readyz turns not-ready and
// back; the gateway recovers with no restart; and afterwards every acknowledged create, payment and
// cancel is in the database exactly once, every 503 that said "nothing was changed" (Retry-After)
// changed nothing, and every payment's webhook event was delivered, once per event.
// Runs on the PostgreSQL pass of the suite; skipped where PostgreSQL's server binaries are missing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { loadConfig } from '../../../src/config.js';
import { silentLogger } from '../../../src/http/logger.js';
import { codeIssuers } from '../../../src/payment-sources/issuers.js';
import { sourceCatalog } from '../../../src/payment-sources/kinds.js';
import type { Deps } from '../../../src/services/deps.js';
import { newServiceState } from '../../../src/services/state.js';
import { addWebhookEndpoint } from '../../../src/services/webhooks/add-webhook-endpoint.js';
import { openDatabase, type Database } from '../../../src/storage/database.js';
import { migrateToLatest } from '../../../src/storage/migrate.js';
import { CANCEL, CQRIS, SIMULATE } from '../../helpers/api.js';
import { onPostgres, seedMerchant, type Seeded } from '../../helpers/context.js';
import { binaries, PgCluster } from '../../helpers/pg-cluster.js';
import { startGateway, type GatewayProcess } from '../../helpers/processes.js';
import { Receiver } from '../../helpers/receiver.js';

const bins = binaries();

type Op = 'create' | 'pay' | 'cancel';
interface Answer {
  op: Op;
  ref: string;
  trxid: string | null;
  status: number;
  code: string | null;
  retryAfter: string | null;
  phase: string;
}

// `.ci/run` sets QG_REQUIRE_PG_BINARIES=1: there the test must run, never quietly skip.
const required = process.env.QG_REQUIRE_PG_BINARIES === '1';
describe.runIf(onPostgres && bins === null)('PostgreSQL outage', () => {
  it.skipIf(!required)(
    'needs PostgreSQL server binaries (initdb, pg_ctl) on PATH or in /usr/lib/postgresql/<version>/bin',
    () => {
      expect.fail('QG_REQUIRE_PG_BINARIES=1 but initdb and pg_ctl were not found');
    },
  );
});

describe.runIf(onPostgres && bins !== null)('PostgreSQL goes away under load and comes back', () => {
  let cluster: PgCluster;
  let database: Database;
  let seeded: Seeded;
  let receiver: Receiver;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    cluster = await PgCluster.create(bins!);
    database = openDatabase(cluster.url, { poolSize: 2 });
    await migrateToLatest(database, database.dialect);
    const config = loadConfig({ DATABASE_URL: cluster.url, WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8' });
    const deps: Deps = {
      db: database,
      config,
      now: Date.now,
      logger: silentLogger(),
      issuers: codeIssuers,
      sources: sourceCatalog,
      state: newServiceState(),
    };
    seeded = await seedMerchant(deps);
    receiver = await Receiver.start();
    await addWebhookEndpoint(deps, {
      merchantId: seeded.merchant.id,
      url: receiver.url(),
      events: ['transaction.paid'],
    });
    // The seeding connections are closed before the faults: only the gateway's meet them.
    await database.close();
    gateway = await startGateway({
      DATABASE_URL: cluster.url,
      DEMO_MERCHANT: 'false',
      RATE_LIMIT_PER_MINUTE: '0',
      DATABASE_POOL_SIZE: '5',
      WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8',
      WEBHOOK_DISPATCH_INTERVAL_MS: '100',
      SWEEP_INTERVAL_MS: '200',
      // Short, so that the frozen server below is given up on within the test's time.
      DATABASE_QUERY_TIMEOUT_MS: '1000',
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      // A delivery whose record was lost in the outage is sent again once its claim (this + 15 s) ends.
      WEBHOOK_TIMEOUT_MS: '2000',
      LOG_LEVEL: 'info',
    });
  }, 180_000);

  afterAll(async () => {
    if (gateway && gateway.child.exitCode !== null)
      console.log(`gateway exited ${gateway.child.exitCode}:\n${gateway.output().slice(-4000)}`);
    await gateway?.stop();
    await receiver?.close();
    await cluster?.destroy();
  });

  it('answers every request, 503 database_unavailable while it is away, recovers by itself, and loses or doubles nothing', async () => {
    const answers: Answer[] = [];
    const broken: string[] = [];
    let phase = 'before';
    let stopLoad = false;
    const key = seeded.testKey;

    // One call; a request that is not answered within 30 s (the gateway's request timeout is shorter)
    // or whose connection breaks is a failure of the test, not an outcome.
    const call = async (op: Op, ref: string, path: string, trxid: string | null): Promise<Answer | null> => {
      const at = phase;
      try {
        const res = await fetch(`${gateway.url}${path}`, {
          method: op === 'create' ? 'GET' : 'POST',
          headers: { 'x-api-key': key },
          signal: AbortSignal.timeout(30_000),
        });
        const body = (await res.json()) as { data?: { trxid?: string }; error?: { code?: string } };
        const answer: Answer = {
          op,
          ref,
          trxid: trxid ?? body.data?.trxid ?? null,
          status: res.status,
          code: body.error?.code ?? null,
          retryAfter: res.headers.get('retry-after'),
          phase: at,
        };
        answers.push(answer);
        return answer;
      } catch (err) {
        broken.push(`${op} ${ref} in ${at}: ${(err as Error).message}`);
        return null;
      }
    };

    // A client that does what docs/operations.md says: repeats a refused call (503 with Retry-After) and a call
    // whose outcome is unknown (503 without it); a create repeats with the same ref and amount, which
    // replays the first if it was made. Waits 100 ms rather than Retry-After's 2 s, to keep the test short.
    const until = async (op: Op, ref: string, path: string, trxid: string | null): Promise<Answer | null> => {
      for (;;) {
        const answer = await call(op, ref, path, trxid);
        if (answer === null || answer.status !== 503 || stopLoad) return answer;
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    let n = 0;
    const loop = async (worker: number) => {
      while (!stopLoad) {
        n += 1;
        const i = n;
        const ref = `outage-${worker}-${i}`;
        const amount = 10_000 + i;
        const created = await until('create', ref, `${CQRIS}?amount=${amount}&ref=${ref}`, null);
        if (created?.status !== 200 || created.trxid === null) continue;
        if (i % 3 === 0) await until('pay', ref, `${SIMULATE}?trxid=${created.trxid}`, created.trxid);
        else if (i % 3 === 1) await until('cancel', ref, `${CANCEL}?trxid=${created.trxid}`, created.trxid);
      }
    };
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const readyz = async () => {
      const res = await fetch(`${gateway.url}/readyz`, { signal: AbortSignal.timeout(30_000) });
      return {
        status: res.status,
        code: ((await res.json()) as { error?: { code?: string } }).error?.code ?? null,
        retryAfter: res.headers.get('retry-after'),
      };
    };

    const load = Promise.all(Array.from({ length: 6 }, (_, i) => loop(i)));
    await sleep(1500);

    phase = 'terminated';
    let terminated = 0;
    for (let i = 0; i < 3; i++) {
      terminated += await cluster.terminateClients();
      await sleep(300);
    }
    await sleep(700);

    phase = 'down';
    await cluster.crash();
    const readyWhileDown = await readyz();
    const healthWhileDown = (await fetch(`${gateway.url}/healthz`)).status;
    await sleep(3000);

    phase = 'restarting';
    const restartAt = Date.now();
    await cluster.start();
    const serverUpMs = Date.now() - restartAt;
    let readyAfterMs = -1;
    while (readyAfterMs < 0) {
      if ((await readyz()).status === 200) readyAfterMs = Date.now() - restartAt;
      else await sleep(50);
    }
    phase = 'after';
    const createsBeforeRecovery = answers.filter((a) => a.op === 'create' && a.status === 200).length;
    await sleep(2000);

    // A server that answers nothing at all (SIGSTOP): queries in flight are given up on after
    // DATABASE_QUERY_TIMEOUT_MS, new connections after DATABASE_CONNECT_TIMEOUT_MS.
    phase = 'frozen';
    cluster.freeze();
    await sleep(3000);
    const readyWhileFrozen = await readyz();
    phase = 'thawed';
    cluster.thaw();
    await sleep(2500);
    stopLoad = true;
    await load;

    // What the clients saw.
    expect(broken, 'requests not answered or cut off').toEqual([]);
    const unexpected = answers.filter(
      (a) =>
        a.status !== 200 &&
        !(a.status === 503 && a.code === 'database_unavailable') &&
        !(a.op === 'pay' && a.status === 409 && a.code === 'transaction_already_paid'),
    );
    expect(unexpected, 'answers other than 200 and 503 database_unavailable').toEqual([]);
    const refusedDown = answers.filter((a) => a.phase === 'down' && a.status === 503);
    expect(refusedDown.length, 'the outage was met by the load').toBeGreaterThan(0);
    expect(readyWhileDown).toEqual({ status: 503, code: 'database_unavailable', retryAfter: '2' });
    expect(healthWhileDown).toBe(200);
    expect([readyWhileFrozen.status, readyWhileFrozen.code]).toEqual([503, 'database_unavailable']);
    expect(
      answers.filter((a) => a.phase === 'frozen' && a.status === 503).length,
      'the frozen server was given up on',
    ).toBeGreaterThan(0);
    expect(
      answers.filter((a) => a.phase === 'thawed' && a.op === 'create' && a.status === 200).length,
      'creates succeed after the thaw',
    ).toBeGreaterThan(0);
    expect(
      answers.filter((a) => a.phase === 'after' && a.op === 'create' && a.status === 200).length,
      'creates succeed again without a restart',
    ).toBeGreaterThan(0);
    expect(gateway.child.exitCode).toBeNull();
    expect(answers.filter((a) => a.op === 'create' && a.status === 200).length).toBeGreaterThan(createsBeforeRecovery);

    // What the database holds, read through a connection of the test's own.
    const check = new pg.Client({ connectionString: cluster.url });
    await check.connect();
    try {
      const rows = (
        await check.query<{ id: string; ref: string | null; status: string }>(
          "SELECT id, ref, status FROM transactions WHERE ref LIKE 'outage-%'",
        )
      ).rows;
      const byRef = new Map<string, Array<{ id: string; status: string }>>();
      for (const r of rows) byRef.set(r.ref!, [...(byRef.get(r.ref!) ?? []), r]);
      const doubled = [...byRef].filter(([, list]) => list.length > 1).map(([ref]) => ref);
      expect(doubled, 'a ref stored twice').toEqual([]);
      const acked = (op: Op) => answers.filter((a) => a.op === op && a.status === 200);
      const missing = acked('create').filter((a) => byRef.get(a.ref)?.[0]?.id !== a.trxid);
      expect(
        missing.map((a) => a.ref),
        'acknowledged creates missing',
      ).toEqual([]);
      const unpaid = acked('pay').filter((a) => byRef.get(a.ref)?.[0]?.status !== 'paid');
      expect(
        unpaid.map((a) => a.ref),
        'acknowledged payments not paid',
      ).toEqual([]);
      const uncancelled = acked('cancel').filter((a) => byRef.get(a.ref)?.[0]?.status !== 'cancelled');
      expect(
        uncancelled.map((a) => a.ref),
        'acknowledged cancels not cancelled',
      ).toEqual([]);
      // A 503 with Retry-After says nothing was changed: a ref whose only create answers were such
      // refusals was never stored.
      const createsOf = (ref: string) => answers.filter((a) => a.op === 'create' && a.ref === ref);
      const refusedOnly = [...new Set(answers.filter((a) => a.op === 'create').map((a) => a.ref))].filter((ref) =>
        createsOf(ref).every((a) => a.status === 503 && a.retryAfter !== null),
      );
      expect(
        refusedOnly.filter((ref) => byRef.has(ref)),
        'refs stored although every create of them was refused',
      ).toEqual([]);

      // Every payment's event arrives (those queued before the outage too), and one event per payment.
      const paidIds = new Set(rows.filter((r) => r.status === 'paid').map((r) => r.id));
      const eventsOf = () => {
        const events = new Map<string, Set<string>>();
        for (const r of receiver.requests) {
          const trxid = (JSON.parse(r.body) as { data: { trxid: string } }).data.trxid;
          events.set(trxid, (events.get(trxid) ?? new Set()).add(String(r.headers['x-event-id'])));
        }
        return events;
      };
      const deadline = Date.now() + 60_000;
      while ([...paidIds].some((id) => !eventsOf().has(id)) && Date.now() < deadline) await sleep(200);
      const events = eventsOf();
      expect(
        [...paidIds].filter((id) => !events.has(id)),
        'payments whose webhook never arrived',
      ).toEqual([]);
      expect(
        [...events].filter(([, ids]) => ids.size > 1).map(([id]) => id),
        'payments with two different events',
      ).toEqual([]);

      // The workers backed off instead of logging every round, and said when they resumed.
      const lines = gateway
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: number; msg: string; worker?: string });
      // Per worker, its outage lines alternate: one warning as a spell starts, one info as it ends; never a
      // line per round (a worker that logged each 100 ms round would show dozens in the 3 s down alone).
      const outageLines = lines.filter(
        (l) =>
          l.msg.startsWith('database unavailable: worker backing off') || l.msg.startsWith('database available again'),
      );
      const perWorker = new Map<string, string[]>();
      for (const l of outageLines)
        perWorker.set(l.worker ?? '', [
          ...(perWorker.get(l.worker ?? '') ?? []),
          l.msg.startsWith('database unavailable') ? 'off' : 'on',
        ]);
      expect(
        lines.filter((l) => l.level >= 50).map((l) => l.msg),
        'errors logged',
      ).toEqual([]);
      expect(outageLines.length).toBeGreaterThan(0);
      for (const [worker, seq] of perWorker) {
        expect(
          seq.every((s, i) => s === (i % 2 === 0 ? 'off' : 'on')),
          `${worker}: ${seq.join(',')}`,
        ).toBe(true);
        // Three faults (terminations, the stop, the freeze): a few spells at most.
        expect(seq.length, `${worker} logged ${seq.length} outage lines`).toBeLessThanOrEqual(10);
      }
      expect(lines.some((l) => l.msg.startsWith('database available again'))).toBe(true);

      const count = (op: Op, status: number) => answers.filter((a) => a.op === op && a.status === status).length;
      console.log(
        JSON.stringify({
          terminatedConnections: terminated,
          creates: { ok: count('create', 200), unavailable: count('create', 503) },
          pays: { ok: count('pay', 200), unavailable: count('pay', 503) },
          cancels: { ok: count('cancel', 200), unavailable: count('cancel', 503) },
          inDoubt: answers.filter((a) => a.status === 503 && a.retryAfter === null).length,
          answeredWhileDown: answers.filter((a) => a.phase === 'down').length,
          answeredWhileFrozen: answers.filter((a) => a.phase === 'frozen').length,
          serverStartMs: serverUpMs,
          readyAfterStartMs: readyAfterMs,
          checkedRows: rows.length,
          webhookEvents: events.size,
        }),
      );
    } finally {
      await check.end();
    }
  }, 180_000);
});
