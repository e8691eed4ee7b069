// issue 38, part 2: compose.yaml as an operator runs it (a .env made from .env.example), with SQLite and
// with the `postgres` profile. Caddy in front with its internal CA (CADDY_TLS=internal), reached over HTTPS
// on 127.0.0.1 with the test domain as SNI and Host and only that CA trusted: a create with a key made by
// the CLI in the container, its status, the checkout page, a payment, a console login; then `down` and
// `up` again keep every transaction.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Stack } from './helpers/compose.js';
import type { DockerDaemon } from './helpers/docker-daemon.js';
import { CookieJar, https, type HttpsTarget, plainHttpGet, waitForHttps } from './helpers/https-client.js';

const daemon: DockerDaemon = { host: inject('dockerHost'), own: inject('ownDaemon'), stop: async () => {} };
const image = inject('gatewayImage');
const DOMAIN = 'pay.qris-gateway.test';
interface Created {
  trxid: string;
  total_amount: number;
  status: string;
  checkout_url: string;
}

const cases: Array<{ name: string; database: string; profiles: string[]; env: Record<string, string> }> = [
  { name: 'SQLite (the default)', database: 'sqlite', profiles: [], env: {} },
  {
    name: 'the postgres profile (PostgreSQL and Redis)',
    database: 'postgres',
    profiles: ['postgres'],
    env: {
      COMPOSE_PROFILES: 'postgres',
      POSTGRES_PASSWORD: 'deploy-test-pw',
      DATABASE_URL: 'postgres://gateway:deploy-test-pw@postgres:5432/gateway',
      REDIS_URL: 'redis://redis:6379',
    },
  },
];

describe.each(cases)('compose.yaml with $name', ({ database, profiles, env }) => {
  let stack: Stack;
  let target: HttpsTarget;
  let key: string;
  const created: Created[] = [];

  beforeAll(async () => {
    stack = await Stack.create(daemon, { image, domain: DOMAIN, profiles, env });
    try {
      await stack.up();
      target = { domain: DOMAIN, port: stack.httpsPort, ca: await stack.caddyRoot() };
      // The gateway restarts until PostgreSQL accepts connections (restart: unless-stopped).
      await waitForHttps(target, '/readyz', 180_000);
    } catch (err) {
      throw new Error(`the stack did not come up: ${(err as Error).message}\n${await stack.logs()}`);
    }
  });

  afterAll(async () => {
    await stack?.destroy();
  });

  it('serves HTTPS for the domain with a certificate of Caddy’s CA, on the configured database', async () => {
    const ready = await https(target, 'GET', '/readyz');
    expect(ready.authorized).toBe(true);
    expect(JSON.parse(ready.body)).toEqual({ success: true, data: { status: 'ready', database } });
    // Plain HTTP is redirected to HTTPS.
    const plain = await plainHttpGet(stack.httpPort, DOMAIN, '/healthz');
    expect(plain.status).toBe(308);
    expect(plain.headers.location).toBe(`https://${DOMAIN}/healthz`);
  });

  it('creates a transaction with a key made by the CLI in the container, and shows its status and checkout page', async () => {
    const merchants = await stack.cli<{ items: Array<{ id: string }> }>(['merchant', 'list']);
    const merchant = merchants.items[0]!.id;
    key = (await stack.cli<{ key: string }>(['key', 'create', '--merchant', merchant, '--mode', 'test'])).key;
    const create = await https(target, 'POST', '/api/payment-gateway/cqris', {
      headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'amount=25000',
    });
    expect(create.status, create.body).toBe(201);
    const tx = (JSON.parse(create.body) as { data: Created }).data;
    created.push(tx);
    expect(tx.status).toBe('pending');
    // PUBLIC_BASE_URL is https://DOMAIN (compose.yaml).
    expect(tx.checkout_url).toBe(`https://${DOMAIN}/checkout/${tx.trxid}`);

    const status = await https(target, 'GET', `/api/payment-gateway/cstatus?trxid=${tx.trxid}`, {
      headers: { 'x-api-key': key },
    });
    expect(status.status).toBe(200);
    expect(JSON.parse(status.body).data.status).toBe('pending');

    const page = await https(target, 'GET', `/checkout/${tx.trxid}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain(tx.trxid);

    const pay = await https(target, 'POST', `/api/payment-gateway/simulate?trxid=${tx.trxid}`, {
      headers: { 'x-api-key': key },
    });
    expect(pay.status, pay.body).toBe(200);
    const paid = await https(target, 'GET', `/api/payment-gateway/cstatus?trxid=${tx.trxid}`, {
      headers: { 'x-api-key': key },
    });
    expect(JSON.parse(paid.body).data.status).toBe('paid');

    const second = await https(target, 'POST', '/api/payment-gateway/cqris', {
      headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'amount=10000',
    });
    expect(second.status).toBe(201);
    created.push((JSON.parse(second.body) as { data: Created }).data);
  });

  it('logs an operator made by the CLI into the console (login form with its CSRF token)', async () => {
    const email = 'ops@qris-gateway.test';
    const password = 'deploy test password';
    await stack.cli(['user', 'add', '--email', email, '--role', 'operator'], { ADMIN_PASSWORD: password });
    const jar = new CookieJar();
    // Logged out, the console's front door is the login form.
    const form = await https(target, 'GET', '/dashboard');
    expect(form.status).toBe(200);
    jar.take(form);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1];
    expect(csrf).toBeDefined();
    const login = await https(target, 'POST', '/dashboard/login', {
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf!, email, password, next: '/dashboard' }).toString(),
    });
    expect(login.status, login.body.slice(0, 500)).toBe(303);
    jar.take(login);
    const dashboard = await https(target, 'GET', '/dashboard/transactions', { headers: { cookie: jar.header() } });
    expect(dashboard.status).toBe(200);
    for (const tx of created) expect(dashboard.body).toContain(tx.trxid);
  });

  it('keeps every transaction through `down` and `up`', async () => {
    await stack.down();
    await stack.up();
    await waitForHttps(target, '/readyz', 180_000);
    // Caddy kept its CA and certificate in its volume: the same root still verifies.
    const listed = await stack.cli<{ items: Array<{ trxid: string; status: string }> }>(['transactions', 'list']);
    expect(listed.items.map((t) => t.trxid).sort()).toEqual(created.map((t) => t.trxid).sort());
    const first = await https(target, 'GET', `/api/payment-gateway/cstatus?trxid=${created[0]!.trxid}`, {
      headers: { 'x-api-key': key },
    });
    expect(first.authorized).toBe(true);
    expect(JSON.parse(first.body).data.status).toBe('paid');
  });
});
