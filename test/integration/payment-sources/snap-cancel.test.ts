import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSnapWorld, type SnapWorld } from '../../helpers/snap.js';

// Cancel of acquirer-issued codes against the SNAP acquirer simulator, which checks signatures as a real
// acquirer would. The gateway's acquirer timeout is short so that a stalled acquirer is quick to test.
let w: SnapWorld;
beforeAll(async () => {
  w = await startSnapWorld({ env: { SNAP_HTTP_TIMEOUT_MS: '400' } });
});
afterAll(async () => w.close());

async function cancel(trxid: string, method: 'GET' | 'POST' = 'GET') {
  const res = await fetch(`${w.gatewayUrl}/api/payment-gateway/cancel?trxid=${trxid}`, {
    method,
    headers: { 'X-Api-Key': w.t.liveKey },
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

async function eventTypes(trxid: string): Promise<string[]> {
  const rows = await w.t.deps.db
    .selectFrom('events')
    .select('type')
    .where('transaction_id', '=', trxid)
    .orderBy('created_at')
    .execute();
  return rows.map((r) => r.type);
}

describe('cancel of an acquirer-issued code', () => {
  it('voids the code at the acquirer, then cancels the transaction', async () => {
    const tx = (await w.cqris()).body.data;
    const calls = w.sim.counts.cancel;
    const res = await cancel(tx.trxid, 'POST');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ trxid: tx.trxid, status: 'cancelled' });
    expect(w.sim.counts.cancel).toBe(calls + 1);
    expect(w.sim.code(tx.trxid)!.status).toBe('05');
    expect(await eventTypes(tx.trxid)).toEqual(['transaction.cancelled']);
    // The payer's app can no longer pay it.
    await expect(w.sim.pay(tx.trxid)).rejects.toThrow(/cancelled/);
    // Repeating the cancel asks the acquirer nothing more.
    expect((await cancel(tx.trxid)).status).toBe(200);
    expect(w.sim.counts.cancel).toBe(calls + 1);
  });

  it('settles a code the payer already paid (the acquirer refuses the cancel) and answers 409', async () => {
    const tx = (await w.cqris()).body.data;
    // Paid at the acquirer, and its notification not yet arrived.
    await w.sim.pay(tx.trxid, { notify: false, payerName: 'Siti Aminah' });
    const res = await cancel(tx.trxid);
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.error.code).toBe('transaction_already_paid');
    const after = await w.cstatus(tx.trxid);
    expect(after.status).toBe('paid');
    expect(after.paid_late).toBe(false);
    expect(after.cancelled_at).toBeNull();
    expect(after.payment).toMatchObject({
      source: w.sourceId,
      payer_name: 'Siti Aminah',
      reference: w.sim.code(tx.trxid)!.referenceNo,
    });
    expect(await eventTypes(tx.trxid)).toEqual(['transaction.paid']);
    // The late notification is then a duplicate of the payment already stored.
    await w.sim.notify(tx.trxid);
    expect((await w.cstatus(tx.trxid)).status).toBe('paid');
    expect(await eventTypes(tx.trxid)).toEqual(['transaction.paid']);
  });

  it('answers 503 acquirer_unavailable and changes nothing when the acquirer does not answer in time', async () => {
    const tx = (await w.cqris()).body.data;
    w.sim.stallNext.cancel = 1500;
    // The acquirer would answer after 1.5 s: a 503 means the gateway gave up on it first.
    const res = await cancel(tx.trxid);
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.error.code).toBe('acquirer_unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await w.cstatus(tx.trxid)).status).toBe('pending');
    expect(await eventTypes(tx.trxid)).toEqual([]);
    // Once the acquirer answers again the same cancel goes through.
    await new Promise((r) => setTimeout(r, 1200));
    expect((await cancel(tx.trxid)).status).toBe(200);
  });

  it('answers 503 acquirer_unavailable when the acquirer is overloaded, and 502 acquirer_error when it refuses for another reason', async () => {
    const tx = (await w.cqris()).body.data;
    w.sim.failNext.cancel = 503;
    const busy = await cancel(tx.trxid);
    expect(busy.status).toBe(503);
    expect(busy.body.error.code).toBe('acquirer_unavailable');
    // A refusal whose query shows the code still open is reported as the acquirer's error.
    w.sim.failNext.cancel = 400;
    const refused = await cancel(tx.trxid);
    expect(refused.status).toBe(502);
    expect(refused.body.error.code).toBe('acquirer_error');
    expect((await w.cstatus(tx.trxid)).status).toBe('pending');
    expect(await eventTypes(tx.trxid)).toEqual([]);
  });

  it('a notification for a cancelled code still records the money and pays it late', async () => {
    const tx = (await w.cqris()).body.data;
    expect((await cancel(tx.trxid)).status).toBe(200);
    // An acquirer that settled the payment in the same instant as the cancel.
    const code = w.sim.code(tx.trxid)!;
    code.status = '00';
    code.paidAt = Date.now();
    const sent = await w.sim.notify(tx.trxid);
    expect(sent.status).toBe(200);
    const after = await w.cstatus(tx.trxid);
    expect(after).toMatchObject({ status: 'paid', paid_late: true });
    expect(after.cancelled_at).not.toBeNull();
    expect(await eventTypes(tx.trxid)).toEqual(['transaction.cancelled', 'transaction.paid']);
  });
});
