// issue 23, finding 4: behind a proxy that appends to X-Forwarded-For (the nginx recipe in docs/deploying.md), with
// TRUST_PROXY=1, the gateway reads the address the proxy saw; what a client writes into the header
// itself is ignored, so rotating forged entries gets past no per-address limit.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { addOperator } from '../../helpers/console.js';
import {
  requestFrom,
  startForwardingProxy,
  type ForwardingProxy,
  type PlainResponse,
} from '../../helpers/forwarding-proxy.js';
import { startTestSmtpServer, type TestSmtpServer } from '../../helpers/smtp-server.js';
import { setPaymentLinkHandle } from '../../../src/services/payment-links/set-handle.js';
import type { Viewer } from '../../../src/domain/viewer.js';

const OPERATOR: Viewer = {
  userId: 'usr_test',
  email: 'ops@example.test',
  role: 'operator',
  merchantIds: [],
  sessionKey: 'k',
  actor: { kind: 'user' as const, email: 'ops@example.test' },
};

// Two real clients, told apart by the loopback address they connect from.
const ALICE = '127.0.0.2';
const BOB = '127.0.0.3';

/** A different forged X-Forwarded-For for every request: what the review's script sent. */
const forged = (i: number) => `198.51.100.${10 + i}, 203.0.113.${10 + i}`;

describe('TRUST_PROXY=1 behind a proxy that appends to X-Forwarded-For', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let proxy: ForwardingProxy;
  beforeAll(async () => {
    smtp = await startTestSmtpServer();
  });
  afterAll(async () => smtp.close());
  afterEach(async () => {
    await proxy?.close();
    await t?.close();
  });

  async function start(env: Record<string, string>) {
    t = await createTestApp({
      TRUST_PROXY: '1',
      SIGNUP: 'open',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Gateway <noreply@gateway.test>',
      ...env,
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const address = t.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    proxy = await startForwardingProxy(`http://127.0.0.1:${port}`);
  }

  /** One sign-up as a browser makes it through the proxy: the form (cookie, CSRF token), then the post. */
  async function signUp(from: string, email: string, forwardedFor: string | null): Promise<PlainResponse> {
    const xff: Record<string, string> = forwardedFor === null ? {} : { 'x-forwarded-for': forwardedFor };
    const form = await requestFrom(from, `${proxy.url}/dashboard/signup`, { headers: xff });
    expect(form.status).toBe(200);
    const token = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const cookie = (form.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
    const body = new URLSearchParams({ email, password: 'correct horse battery', _csrf: token }).toString();
    return requestFrom(from, `${proxy.url}/dashboard/signup`, {
      method: 'POST',
      headers: { ...xff, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
  }

  it('forged entries get no sign-up past the per-address limit, and the audit log names the real address', async () => {
    await start({ SIGNUPS_PER_ADDRESS: '5' });
    const alice: number[] = [];
    for (let i = 0; i < 12; i++) alice.push((await signUp(ALICE, `alice${i}@shop.test`, forged(i))).status);
    // The same sequence without any forged header, from another real address: forging changes nothing.
    const bob: number[] = [];
    for (let i = 0; i < 12; i++) bob.push((await signUp(BOB, `bob${i}@shop.test`, null)).status);
    expect(alice).toEqual(bob);
    // The review saw 12 of 12 accepted. Six get through at most (the seventh is refused), the rest are 429.
    expect(alice[6]).toBe(429);
    const accepted = alice.filter((s) => s === 200).length;
    expect(accepted).toBeGreaterThan(0);
    expect(alice).toEqual([...Array(accepted).fill(200), ...Array(12 - accepted).fill(429)]);

    const audit = await t.deps.db
      .selectFrom('audit_log')
      .select(['details'])
      .where('action', '=', 'user.signup')
      .execute();
    const addresses = audit.map((a) => (JSON.parse(a.details!) as { address: string }).address);
    expect(addresses).toHaveLength(accepted * 2);
    expect(new Set(addresses)).toEqual(new Set([ALICE, BOB]));
  });

  it('forged entries get no payment-link opens past the per-address limit', async () => {
    await start({ PAYMENT_LINK_CREATES_PER_MINUTE: '4' });
    await addOperator(t.deps);
    await setPaymentLinkHandle(t.deps, OPERATOR, t.merchant.id, 'warung-saya');
    // The limit counts per wall-clock minute of the test clock, which stands still here.
    const opens: number[] = [];
    for (let i = 0; i < 12; i++) {
      opens.push(
        (
          await requestFrom(ALICE, `${proxy.url}/pay/warung-saya/${20_000 + i}`, {
            headers: { 'x-forwarded-for': forged(i) },
          })
        ).status,
      );
    }
    expect(opens).toEqual([...Array(4).fill(303), ...Array(8).fill(429)]);
    // Another real address has its own count.
    expect((await requestFrom(BOB, `${proxy.url}/pay/warung-saya/30000`)).status).toBe(303);
    const made = await t.deps.db.selectFrom('transactions').select('id').execute();
    expect(made).toHaveLength(5);
  });
});
