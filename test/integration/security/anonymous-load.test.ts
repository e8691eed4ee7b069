// Issue 35, finding 1: nobody without a key can make the gateway shed a paying merchant's calls. A real
// server on loopback; the crowd connects from 127.0.0.2, the merchant from 127.0.0.1. Each held request
// sends its headers and the first bytes of a body it never finishes (`Content-Length: 10000`, then
// `{"amount":`), as the review did with 260 sockets: that used to fill OVERLOAD_MAX_IN_FLIGHT (256) and
// answer the merchant's live-key creates 503 `overloaded`.
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { addWebhookSource } from '../../../src/payment-sources/webhook/setup.js';
import { signPayload } from '../../../src/payment-sources/webhook/signature.js';
import { CQRIS } from '../../helpers/api.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { expectError } from '../../helpers/http-assertions.js';
import { listen } from '../../helpers/payment-sources.js';
import { fillParams, PLACEHOLDER_IDS } from '../../helpers/seeded-world.js';
import { routeTable } from '../../../src/http/route-table.js';

const CROWD = '127.0.0.2';

interface Held {
  socket: net.Socket;
  /** The answer's status and error code (`page` for the console's HTML error page), once the server closed. */
  answer: Promise<{ status: number | null; code: string | null; closed: boolean }>;
}

/** Opens a connection from the crowd's address and sends `head` and a body's first bytes, never the rest. */
function hold(port: number, head: string, from = CROWD): Held {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress: from });
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => {});
  socket.write(head);
  const answer = new Promise<{ status: number | null; code: string | null; closed: boolean }>((resolve) => {
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1];
      const code = /^content-type: text\/html/im.test(text) ? 'page' : (/"code":"([a-z_]+)"/.exec(text)?.[1] ?? null);
      resolve({ status: status ? Number(status) : null, code, closed: true });
    });
  });
  return { socket, answer };
}

/** The three kinds the finding names: no key, a bogus key, a public form. */
function slowRequests(count: number): string[] {
  const body = '{"amount":';
  const kinds = [
    `POST ${CQRIS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n${body}`,
    `POST ${CQRIS} HTTP/1.1\r\nHost: x\r\nX-Api-Key: sk_live_${'x'.repeat(40)}\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n${body}`,
    'POST /dashboard/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000\r\n\r\nemail=a%40b.c&password=',
  ];
  return Array.from({ length: count }, (_, i) => kinds[i % kinds.length]!);
}

async function metric(base: string, name: string): Promise<string> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .join('\n');
}

/** `count` live-key creates from 127.0.0.1, `parallel` at a time; their statuses and the slowest one's time. */
async function creates(base: string, key: string, count: number, parallel: number, from: number) {
  const statuses: number[] = [];
  let slowest = 0;
  for (let i = 0; i < count; i += parallel) {
    await Promise.all(
      Array.from({ length: Math.min(parallel, count - i) }, async (_, j) => {
        const started = performance.now();
        const res = await fetch(`${base}${CQRIS}`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ amount: from + i + j }),
        });
        await res.arrayBuffer();
        slowest = Math.max(slowest, performance.now() - started);
        statuses.push(res.status);
      }),
    );
  }
  return { statuses, slowest };
}

describe('anonymous load never sheds a key holder', () => {
  let t: TestApp;
  let held: Held[] = [];
  afterEach(async () => {
    for (const h of held) h.socket.destroy();
    held = [];
    await t?.close();
  });

  it('300 slow bodies held open from one address (no key, a bogus key, the login form): its share is bounded, the rest 429, creates stay 200, the held ones are cut by HTTP_BODY_TIMEOUT_MS', async () => {
    // Every limit at its default, the body deadline (10 s) too: the creates below run well inside it on
    // any machine, so the 64 are still held while they do.
    t = await createTestApp();
    const base = await listen(t);
    const port = Number(new URL(base).port);
    const baseline = await creates(base, t.liveKey, 40, 20, 60_000);
    expect(baseline.statuses.every((s) => s === 201)).toBe(true);

    held = slowRequests(300).map((head) => hold(port, head));
    // 64 (OVERLOAD_MAX_ANONYMOUS_PER_ADDRESS) are held, every other one is refused at once and closed.
    const refused: Array<{ status: number | null; code: string | null }> = [];
    for (const h of held) void h.answer.then((a) => refused.push(a));
    await vi.waitFor(() => expect(refused.length).toBe(236), { timeout: 10_000, interval: 20 });
    // The API's JSON error, or the console's own error page for the login form.
    expect(new Set(refused.map((a) => `${a.status} ${a.code}`))).toEqual(new Set(['429 rate_limited', '429 page']));

    // Meanwhile the merchant's creates, 20 at a time, are all served.
    const during = await creates(base, t.liveKey, 40, 20, 61_000);
    expect(during.statuses.every((s) => s === 201)).toBe(true);
    // The 64 were held open throughout (the deadline has not passed yet).
    expect(held.filter((h) => !h.socket.destroyed)).toHaveLength(64);
    expect(await metric(base, 'qris_requests_in_flight{pool="anonymous"}')).toMatch(/ 0$/);
    if (process.env.QG_REPORT)
      console.info(
        `creates' slowest: ${baseline.slowest.toFixed(1)} ms alone, ${during.slowest.toFixed(1)} ms with 300 held`,
      );

    // The 64 held are cut by the body deadline: 408 request_timeout, connection closed.
    const answers = await Promise.all(held.map((h) => h.answer));
    const cut = answers.filter((a) => a.status === 408);
    expect(cut).toHaveLength(64);
    expect(cut.every((a) => (a.code === 'request_timeout' || a.code === 'page') && a.closed)).toBe(true);
    // Nothing stays counted: a new crowd gets its full share again.
    const again = hold(port, slowRequests(1)[0]!);
    held.push(again);
    await new Promise((r) => setTimeout(r, 200));
    expect(again.socket.destroyed).toBe(false);
  });

  it('with no per-address share at all, 300 held bodies still count as no work: live creates are answered 200, and every held body is cut', async () => {
    t = await createTestApp({ HTTP_BODY_TIMEOUT_MS: '3000', OVERLOAD_MAX_ANONYMOUS_PER_ADDRESS: '0' });
    const base = await listen(t);
    const port = Number(new URL(base).port);
    held = slowRequests(300).map((head) => hold(port, head));
    // Wait until the server has seen them all (each connection's request counted as arriving).
    await new Promise((r) => setTimeout(r, 500));
    const during = await creates(base, t.liveKey, 60, 20, 70_000);
    expect(during.statuses.filter((s) => s !== 201)).toEqual([]);
    const answers = await Promise.all(held.map((h) => h.answer));
    expect(answers.filter((a) => !(a.status === 408 && (a.code === 'request_timeout' || a.code === 'page')))).toEqual(
      [],
    );
    expect(answers.filter((a) => a.code === 'request_timeout')).toHaveLength(200);
  });

  it('a crowd of unauthenticated work (signed source events) is shed from its own pool, never the key holders', async () => {
    t = await createTestApp({ OVERLOAD_MAX_ANONYMOUS_IN_FLIGHT: '3', OVERLOAD_MAX_IN_FLIGHT: '256' });
    const source = await addWebhookSource(t.deps, { merchantId: t.merchant.id, mode: 'test' });
    let n = 0;
    const event = () => {
      const body = JSON.stringify({
        id: `crowd-${++n}`,
        amount: 123_000 + n,
        paid_at: new Date(t.clock.now()).toISOString(),
      });
      return {
        method: 'POST' as const,
        url: `/api/payment-sources/${source.id}/events`,
        headers: {
          'content-type': 'application/json',
          'x-signature': signPayload(source.secret, body, Math.floor(t.clock.now() / 1000)),
        },
        payload: body,
      };
    };
    // Twenty events (each a stored payment, waiting for its commit) and ten creates, all at once.
    const [anonymous, keyed] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, () => t.app.inject(event()))),
      Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t.app.inject({ url: `${CQRIS}?amount=${80_000 + i}`, headers: { 'x-api-key': t.liveKey } }),
        ),
      ),
    ]);
    expect(keyed.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    const served = anonymous.filter((r) => r.statusCode === 200);
    expect(served.length).toBeGreaterThanOrEqual(3);
    expect(served.length).toBeLessThan(20);
    for (const r of anonymous.filter((x) => x.statusCode !== 200)) {
      expectError(r, 503, 'overloaded');
      expect(r.headers['retry-after']).toBe('2');
    }
    // Refused events stored nothing; the served ones each one payment.
    expect(await t.deps.db.selectFrom('payments').select('id').execute()).toHaveLength(served.length);
    // The pool empties: the next three, one after another, are served.
    for (let i = 0; i < 3; i++) expect((await t.app.inject(event())).statusCode).toBe(200);
  });

  it("bodies that arrive at once never count against their address: a merchant's burst of creates from one address passes a share of 1", async () => {
    t = await createTestApp({ OVERLOAD_MAX_ANONYMOUS_PER_ADDRESS: '1' });
    const base = await listen(t);
    const burst = await creates(base, t.liveKey, 100, 50, 90_000);
    expect(burst.statuses.filter((s) => s !== 201)).toEqual([]);
    // And through inject, where every body is read after all 100 requests have begun.
    const injected = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: CQRIS,
          headers: { 'x-api-key': t.liveKey },
          payload: { amount: 91_000 + i },
        }),
      ),
    );
    expect(injected.filter((r) => r.statusCode !== 201).map((r) => r.body)).toEqual([]);
  });

  // Driven from the app's route table, so a route added tomorrow is covered the day it is added: every
  // route that can take a body, on either mount and in the console, counts a slow body against its
  // sender's address and cuts it at HTTP_BODY_TIMEOUT_MS.
  it('every route that takes a body: a slow one is answered at once (logged-out console forms) or cut with 408, and past its address share a new one is refused 429 at once', async () => {
    t = await createTestApp({ HTTP_BODY_TIMEOUT_MS: '3000', OVERLOAD_MAX_ANONYMOUS_PER_ADDRESS: '1', CONSOLE: 'true' });
    const base = await listen(t);
    const port = Number(new URL(base).port);
    const ids = { ...PLACEHOLDER_IDS, wildcard: 'x' };
    const exempt = new Set(['/healthz', '/readyz', '/metrics']);
    const routes = routeTable(t.app).filter(
      (r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) && !exempt.has(r.url) && !r.url.includes('*'),
    );
    expect(routes.length).toBeGreaterThan(40);
    const head = (method: string, url: string) =>
      `${method} ${fillParams(url, ids)} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000\r\n\r\namount=`;
    // Each route's slow body from an address of its own (127.0.3.1, 127.0.3.2, ...), all held at once.
    const slow = routes.map((r, i) => {
      const from = `127.0.${3 + Math.floor(i / 250)}.${(i % 250) + 1}`;
      const text = head(r.method, r.url);
      return { route: `${r.method} ${r.url}`, from, head: text, held: hold(port, text, from) };
    });
    held.push(...slow.map((x) => x.held));
    // Past the first check (every 750 ms here; timers fire in order, so a slow machine delays both alike) each held body has taken its address's share. A logged-out
    // console form is answered at once (to the login page) and its connection closed, so nothing of it is
    // held; how soon depends on the session lookup, so it is told apart by its answer, not by a clock.
    await new Promise((r) => setTimeout(r, 1200));
    const second = slow.map((x) => ({ route: x.route, held: hold(port, x.head, x.from) }));
    held.push(...second.map((x) => x.held));
    const pairs = await Promise.all(
      slow.map(async (x, i) => ({
        route: x.route,
        first: (await x.held.answer).status,
        second: (await second[i]!.held.answer).status,
      })),
    );
    // Each route: a held body cut by the deadline, and the second refused for want of a share; or a
    // logged-out console form answered 303 both times (or the second refused while the first still counted).
    const wrong = pairs.filter(
      (p) => !((p.first === 408 && p.second === 429) || (p.first === 303 && (p.second === 303 || p.second === 429))),
    );
    expect(wrong.map((p) => `${p.route}: ${p.first} then ${p.second}`)).toEqual([]);
    expect(pairs.filter((p) => p.first === 303).every((p) => / \/dashboard\//.test(p.route))).toBe(true);
    expect(pairs.filter((p) => p.first === 408).length).toBeGreaterThan(10);
  });
});
