// The inbound route reuses an enabled source's row for SOURCE_CACHE_MS (services/sources/source-cache.ts)
// instead of reading it for every post. What must still hold: a change made here is seen by the next post;
// new credentials set by another process are accepted at once (a refusal by a cached row asks the stored
// row again); a source turned off elsewhere is refused once its cached row is that old. On both databases.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { addWebhookSource } from '../../../src/payment-sources/webhook/setup.js';
import { signPayload } from '../../../src/payment-sources/webhook/signature.js';
import { SOURCE_CACHE_MS } from '../../../src/services/sources/source-cache.js';
import { setSourceEnabled } from '../../../src/services/sources/set-source-enabled.js';
import { setPaymentSourceConfig, updatePaymentSourceEnabled } from '../../../src/storage/queries/sources.js';
import { TEST_ACTOR } from '../../helpers/console.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { listen } from '../../helpers/payment-sources.js';
import { hookStatements } from '../../helpers/statement-hook.js';

let t: TestApp;
let base: string;
let seq = 0;

beforeAll(async () => {
  t = await createTestApp();
  base = await listen(t);
});
afterAll(async () => t.close());
afterEach(() => {
  vi.restoreAllMocks();
});

const newSource = () => addWebhookSource(t.deps, { merchantId: t.merchant.id, mode: 'live' });

/** A signed post of a payment nobody waits for (stored unmatched): its status and error code. */
async function post(source: { url: string }, secret: string): Promise<{ status: number; code: string | null }> {
  const body = JSON.stringify({
    id: `cache-${++seq}`,
    amount: 7_000 + seq,
    paid_at: new Date(t.clock.now()).toISOString(),
  });
  const res = await fetch(`${base}${source.url}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-signature': signPayload(secret, body, Math.floor(t.clock.now() / 1000)),
    },
    body,
  });
  const answer = (await res.json()) as { error?: { code: string } };
  return { status: res.status, code: answer.error?.code ?? null };
}

/** How many statements read payment_sources while `run` runs. */
async function sourceReads(run: () => Promise<void>): Promise<number> {
  let reads = 0;
  const unhook = hookStatements(t.deps.db, {
    ran: (text) => {
      if (/from "payment_sources"/.test(text)) reads += 1;
    },
  });
  try {
    await run();
  } finally {
    unhook();
  }
  return reads;
}

/** As another process would change a source: in the database, without this process's services. */
const elsewhere = {
  setSecret: (id: string, secret: string) =>
    t.deps.db.runInTransaction((trx) =>
      setPaymentSourceConfig(trx, id, JSON.stringify({ mode: 'live', secret }), t.clock.now() + 1),
    ),
  disable: (id: string) =>
    t.deps.db.runInTransaction((trx) =>
      updatePaymentSourceEnabled(trx, id, { enabled: false, now: t.clock.now() + 2, pollNow: false }),
    ),
};

describe('inbound posts reuse their source for a few seconds', () => {
  it('posts to a source one after another read it from the database once', async () => {
    const source = await newSource();
    const reads = await sourceReads(async () => {
      for (let i = 0; i < 5; i++) expect((await post(source, source.secret)).status).toBe(200);
    });
    expect(reads).toBe(1);
  });

  it('a source turned off here is refused at the next post', async () => {
    const source = await newSource();
    expect((await post(source, source.secret)).status).toBe(200);
    await setSourceEnabled(t.deps, { id: source.id, enabled: false, actor: TEST_ACTOR });
    expect(await post(source, source.secret)).toEqual({ status: 404, code: 'source_not_found' });
  });

  it('a secret set by another process is accepted at once; a wrong one is refused after one read', async () => {
    const source = await newSource();
    expect((await post(source, source.secret)).status).toBe(200);
    const secret = `whsec_${'n'.repeat(43)}`;
    await elsewhere.setSecret(source.id, secret);
    // The cached row refuses the new secret; the stored row accepts it.
    expect(await sourceReads(async () => expect((await post(source, secret)).status).toBe(200))).toBe(1);
    // The stored row is cached now: the old secret is refused, and so is a wrong one, each after one read
    // that finds the same row.
    for (const wrong of [source.secret, `whsec_${'w'.repeat(43)}`]) {
      let answer: { status: number; code: string | null } | undefined;
      expect(
        await sourceReads(async () => {
          answer = await post(source, wrong);
        }),
      ).toBe(1);
      expect(answer).toEqual({ status: 401, code: 'invalid_signature' });
    }
    expect(await sourceReads(async () => expect((await post(source, secret)).status).toBe(200))).toBe(0);
  });

  it('a source turned off by another process is refused once its cached row is SOURCE_CACHE_MS old', async () => {
    const source = await newSource();
    expect((await post(source, source.secret)).status).toBe(200);
    await elsewhere.disable(source.id);
    // Within SOURCE_CACHE_MS the cached row still answers (the documented staleness of another process's change).
    expect((await post(source, source.secret)).status).toBe(200);
    const now = performance.now();
    vi.spyOn(performance, 'now').mockImplementation(() => now + SOURCE_CACHE_MS + 1);
    expect(await post(source, source.secret)).toEqual({ status: 404, code: 'source_not_found' });
  });
});
