import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAsymmetric, snapTimestamp } from '../../../src/payment-sources/snap/signature.js';
import { postNotification, startSnapWorld, type SnapWorld } from '../../helpers/snap.js';

let w: SnapWorld;
beforeAll(async () => {
  w = await startSnapWorld();
});
afterAll(async () => w.close());

async function created(): Promise<{ trxid: string; referenceNo: string }> {
  const res = await w.cqris();
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const trxid = res.body.data.trxid as string;
  return { trxid, referenceNo: w.sim.code(trxid)!.referenceNo };
}

async function unchanged(trxid: string): Promise<void> {
  const tx = await w.t.deps.db.selectFrom('transactions').selectAll().where('id', '=', trxid).executeTakeFirstOrThrow();
  expect(tx.status).toBe('pending');
  expect(tx.payment_id).toBeNull();
  const payments = await w.t.deps.db
    .selectFrom('payments')
    .select('id')
    .where('source', '=', w.sourceId)
    .where('transaction_id', '=', trxid)
    .execute();
  expect(payments).toEqual([]);
}

/** A notification for a code the simulator marked paid, signed but not sent, with a tweak. */
async function paidNotification(trxid: string) {
  await w.sim.pay(trxid, { notify: false });
  return w.sim.notify(trxid, { send: false });
}

describe('SNAP notification (asymmetric)', () => {
  it('turns the transaction paid with the acquirer reference, issuer and payer in cstatus', async () => {
    const { trxid, referenceNo } = await created();
    const sent = await w.sim.pay(trxid, { payerName: 'Siti Aminah', issuer: 'DANA' });
    expect(sent!.status).toBe(200);
    expect(sent!.response).toEqual({ responseCode: '2005200', responseMessage: 'Successful' });
    const view = await w.cstatus(trxid);
    expect(view.status).toBe('paid');
    expect(view.paid_late).toBe(false);
    expect(view.payment).toMatchObject({
      source: w.sourceId,
      reference: referenceNo,
      issuer: 'DANA',
      payer_name: 'Siti Aminah',
      amount: view.total_amount,
    });
  });

  it('acknowledges a repeated notification and records the payment once', async () => {
    const { trxid } = await created();
    await w.sim.pay(trxid);
    const again = await w.sim.notify(trxid);
    expect(again.status).toBe(200);
    expect((again.response as { responseCode: string }).responseCode).toBe('2005200');
    const payments = await w.t.deps.db.selectFrom('payments').selectAll().where('transaction_id', '=', trxid).execute();
    expect(payments).toHaveLength(1);
  });

  it('acknowledges a non-final status without recording anything', async () => {
    const { trxid } = await created();
    const res = await w.sim.notify(trxid, { status: '03' });
    expect(res.status).toBe(200);
    await unchanged(trxid);
  });

  it('refuses a bad signature with 401 4015200 and changes nothing', async () => {
    const { trxid } = await created();
    const n = await paidNotification(trxid);
    const forged = n.body.replace(/"value": "\d+\.00"/, '"value": "1.00"');
    expect(forged).not.toBe(n.body);
    const res = await postNotification({ ...n, body: forged });
    expect(res).toEqual({
      status: 401,
      body: { responseCode: '4015200', responseMessage: 'Unauthorized. [Signature]' },
    });
    const noSig = await postNotification({ ...n, headers: { ...n.headers, 'X-SIGNATURE': '' } });
    expect(noSig.status).toBe(401);
    // Signed with a key that is not the acquirer's.
    const { generateKeyPairSync } = await import('node:crypto');
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const signature = signAsymmetric(stranger, {
      method: 'POST',
      path: new URL(n.url).pathname,
      body: n.body,
      timestamp: n.headers['X-TIMESTAMP']!,
    });
    expect((await postNotification({ ...n, headers: { ...n.headers, 'X-SIGNATURE': signature } })).status).toBe(401);
    await unchanged(trxid);
  });

  it('refuses a stale timestamp and changes nothing', async () => {
    const { trxid } = await created();
    await w.sim.pay(trxid, { notify: false });
    const stale = await w.sim.notify(trxid, { send: false, timestamp: snapTimestamp(Date.now() - 10 * 60_000) });
    const res = await postNotification(stale);
    expect(res.status).toBe(401);
    expect(res.body.responseCode).toBe('4015200');
    const future = await postNotification(
      await w.sim.notify(trxid, { send: false, timestamp: snapTimestamp(Date.now() + 10 * 60_000) }),
    );
    expect(future.status).toBe(401);
    const malformed = await postNotification(
      await w.sim.notify(trxid, { send: false, timestamp: '2024-05-02 14:43:08' }),
    );
    expect(malformed).toMatchObject({ status: 400, body: { responseCode: '4005201' } });
    await unchanged(trxid);
  });

  it('refuses malformed JSON (validly signed) with 400 4005200', async () => {
    const { trxid } = await created();
    const n = await paidNotification(trxid);
    const body = n.body.slice(0, -1);
    const timestamp = n.headers['X-TIMESTAMP']!;
    const signature = signAsymmetric(w.sim.privateKey, {
      method: 'POST',
      path: new URL(n.url).pathname,
      body,
      timestamp,
    });
    const res = await postNotification({ ...n, body, headers: { ...n.headers, 'X-SIGNATURE': signature } });
    expect(res).toMatchObject({ status: 400, body: { responseCode: '4005200' } });
    // Unsigned garbage is refused for its signature first.
    expect((await postNotification({ ...n, body: 'not json' })).status).toBe(401);
    await unchanged(trxid);
  });

  it('refuses an unknown reference with 404 4045201 and records nothing', async () => {
    const { trxid } = await created();
    const n = await paidNotification(trxid);
    const body = n.body
      .replace(/"originalReferenceNo": "[^"]+"/, '"originalReferenceNo": "A20990101UNKNOWN"')
      .replace(trxid, 'trx_unknown');
    const timestamp = n.headers['X-TIMESTAMP']!;
    const signature = signAsymmetric(w.sim.privateKey, {
      method: 'POST',
      path: new URL(n.url).pathname,
      body,
      timestamp,
    });
    const res = await postNotification({ ...n, body, headers: { ...n.headers, 'X-SIGNATURE': signature } });
    expect(res).toMatchObject({ status: 404, body: { responseCode: '4045201' } });
    const payments = await w.t.deps.db
      .selectFrom('payments')
      .select('id')
      .where('source_payment_id', '=', 'A20990101UNKNOWN')
      .execute();
    expect(payments).toEqual([]);
    await unchanged(trxid);
  });

  it('refuses a repeated X-EXTERNAL-ID with 409 4095200', async () => {
    const a = await created();
    const b = await created();
    await w.sim.pay(a.trxid, { notify: false });
    await w.sim.pay(b.trxid, { notify: false });
    const first = await w.sim.notify(a.trxid, { externalId: 'ext-dup-1' });
    expect(first.status).toBe(200);
    const second = await w.sim.notify(b.trxid, { externalId: 'ext-dup-1' });
    expect(second.status).toBe(409);
    expect((second.response as { responseCode: string }).responseCode).toBe('4095200');
    await unchanged(b.trxid);
  });

  it('refuses missing mandatory headers and fields with 400', async () => {
    const { trxid } = await created();
    const n = await paidNotification(trxid);
    const { 'X-TIMESTAMP': _ts, ...noTimestamp } = n.headers;
    expect(await postNotification({ ...n, headers: noTimestamp })).toMatchObject({
      status: 400,
      body: { responseCode: '4005202' },
    });
    const { 'X-EXTERNAL-ID': _ext, ...noExternal } = n.headers;
    expect(await postNotification({ ...n, headers: noExternal })).toMatchObject({
      status: 400,
      body: { responseCode: '4005202' },
    });
    await unchanged(trxid);
  });

  it('answers 404 on a /snap/ path no source uses, in SNAP shape', async () => {
    const res = await fetch(`${w.gatewayUrl}/snap/v1.0/qr/other`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { responseCode: string }).responseCode).toBe('4045200');
  });
});

describe('SNAP notification (symmetric, hex signatures)', () => {
  let s: SnapWorld;
  beforeAll(async () => {
    s = await startSnapWorld({ notifyVerification: 'symmetric', signatureEncoding: 'hex' });
  });
  afterAll(async () => s.close());

  it('takes a token from the gateway, then pays', async () => {
    const res = await s.cqris();
    const trxid = res.body.data.trxid as string;
    const sent = await s.sim.pay(trxid, { issuer: 'OVO', payerName: 'Andi' });
    expect(sent!.status).toBe(200);
    expect(sent!.headers['X-SIGNATURE']).toMatch(/^[0-9a-f]{128}$/);
    const view = await s.cstatus(trxid);
    expect(view.status).toBe('paid');
    expect(view.payment).toMatchObject({ issuer: 'OVO', payer_name: 'Andi' });
    const tokens = await s.t.deps.db.selectFrom('snap_tokens').selectAll().execute();
    expect(tokens).toHaveLength(1);
    expect(tokens[0]!.source_id).toBe(s.sourceId);
  });

  it('refuses an unknown token (4015201) and a wrong secret (4015200)', async () => {
    const res = await s.cqris();
    const trxid = res.body.data.trxid as string;
    await s.sim.pay(trxid, { notify: false });
    const n = await s.sim.notify(trxid, { send: false });
    const badToken = await postNotification({ ...n, headers: { ...n.headers, Authorization: 'Bearer made-up' } });
    expect(badToken).toMatchObject({ status: 401, body: { responseCode: '4015201' } });
    const badSig = await postNotification({ ...n, headers: { ...n.headers, 'X-SIGNATURE': '0'.repeat(128) } });
    expect(badSig).toMatchObject({ status: 401, body: { responseCode: '4015200' } });
    expect((await s.cstatus(trxid)).status).toBe('pending');
  });

  it('refuses a token request not signed by the acquirer', async () => {
    const res = await fetch(`${s.gatewayUrl}/snap/v1.0/access-token/b2b`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-TIMESTAMP': snapTimestamp(Date.now()),
        'X-CLIENT-KEY': s.config.clientId,
        'X-SIGNATURE': Buffer.alloc(256).toString('base64'),
      },
      body: '{"grantType":"client_credentials"}',
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { responseCode: string }).responseCode).toBe('4017300');
  });
});

// issue 23, finding 12: an over-long URL became SNAP's 500 "General Error" (5005200), and any body
// type was read as if it were JSON. Every hostile request to a SNAP inbound route is SNAP's 400, with
// the case that says why: 00 Bad Request, 01 Invalid Field Format, 02 Invalid Mandatory Field.
describe('SNAP inbound routes refuse hostile requests in SNAP shape', () => {
  const routes = [
    ['notify', '/snap/v1.0/qr/qr-mpm-notify', '52'],
    ['token', '/snap/v1.0/access-token/b2b', '73'],
  ] as const;
  const json = { 'Content-Type': 'application/json' };
  type Hostile = { path: string; headers?: Record<string, string>; body: string };
  // [what, the request, its case code, the message (a pattern)]
  const cases: Array<[string, (path: string) => Hostile, string, RegExp]> = [
    [
      'an over-long URL (query)',
      (path) => ({ path: `${path}?q=${'a'.repeat(5000)}`, headers: json, body: '{}' }),
      '00',
      /^Bad Request\. the URL is longer than 4096/,
    ],
    [
      'an over-long URL (path)',
      (path) => ({ path: `${path}/${'a'.repeat(5000)}`, headers: json, body: '{}' }),
      '00',
      /^Bad Request\. the URL is longer than 4096/,
    ],
    [
      'a URL with broken escapes',
      (path) => ({ path: `${path}?q=%E0%A4%A&x=%`, headers: json, body: '{}' }),
      '02',
      /^Invalid Mandatory Field/,
    ],
    // Unsigned, so refused for its headers before the body is read (signed malformed JSON: above).
    [
      'malformed JSON',
      (path) => ({ path, headers: json, body: '{"originalReferenceNo": "A1", ' }),
      '02',
      /^Invalid Mandatory Field/,
    ],
    [
      'a text/plain body',
      (path) => ({ path, headers: { 'Content-Type': 'text/plain' }, body: 'hello' }),
      '01',
      /^Invalid Field Format \[Content-Type\]$/,
    ],
    [
      'an XML body',
      (path) => ({ path, headers: { 'Content-Type': 'application/xml' }, body: '<a>1</a>' }),
      '01',
      /^Invalid Field Format \[Content-Type\]$/,
    ],
    [
      'a form body',
      (path) => ({ path, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=1&b=2' }),
      '01',
      /^Invalid Field Format \[Content-Type\]$/,
    ],
    [
      'a broken multipart body',
      (path) => ({ path, headers: { 'Content-Type': 'multipart/form-data; boundary=x' }, body: '--x\r\nbroken' }),
      '01',
      /^Invalid Field Format \[Content-Type\]$/,
    ],
    [
      'a content type of nonsense',
      (path) => ({ path, headers: { 'Content-Type': ';;;=' }, body: '{}' }),
      '01',
      /^Invalid Field Format \[Content-Type\]$/,
    ],
    ['no content type', (path) => ({ path, body: '{}' }), '02', /^Invalid Mandatory Field \[Content-Type\]$/],
    [
      'a huge body',
      (path) => ({ path, headers: json, body: JSON.stringify({ pad: 'x'.repeat(200_000) }) }),
      '00',
      /^Bad Request\. the body is larger than 16384 bytes$/,
    ],
    [
      'a huge body of another type',
      (path) => ({ path, headers: { 'Content-Type': 'application/octet-stream' }, body: 'x'.repeat(200_000) }),
      '00',
      /^Bad Request\. the body is larger/,
    ],
  ];
  for (const [route, path, service] of routes) {
    for (const [name, make, caseCode, message] of cases) {
      it(`${route}: ${name}`, async () => {
        const r = make(path);
        // fetch would add text/plain to a string body: a Uint8Array gets no type unless one is given.
        const res = await fetch(`${w.gatewayUrl}${r.path}`, {
          method: 'POST',
          headers: r.headers ?? {},
          body: new TextEncoder().encode(r.body),
        });
        const text = await res.text();
        expect(res.status, text).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const body = JSON.parse(text) as { responseCode: string; responseMessage: string };
        // An over-long path names no route: the service is the notification's.
        expect(body.responseCode).toBe(`400${name === 'an over-long URL (path)' ? '52' : service}${caseCode}`);
        expect(body.responseMessage).toMatch(message);
      });
    }
  }
});
