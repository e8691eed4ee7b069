// A gateway listening on loopback with a real database, an acquirer simulator on another port, and a
// merchant whose SNAP source points at it.
import type { AddressInfo } from 'node:net';
import { AcquirerSimulator } from '../../src/dev/snap-acquirer/simulator.js';
import { addSnapSource } from '../../src/payment-sources/snap/setup.js';
import { createTestApp, type TestApp } from './context.js';

export interface SnapWorld {
  t: TestApp;
  sim: AcquirerSimulator;
  sourceId: string;
  gatewayUrl: string;
  config: ReturnType<AcquirerSimulator['addPartner']>;
  cqris(params?: Record<string, string>, key?: string): Promise<{ status: number; headers: Headers; body: any }>;
  cstatus(trxid: string, key?: string): Promise<any>;
  close(): Promise<void>;
}

export async function startSnapWorld(
  options: {
    notifyVerification?: 'asymmetric' | 'symmetric';
    signatureEncoding?: 'base64' | 'hex';
    env?: Record<string, string>;
  } = {},
): Promise<SnapWorld> {
  const t = await createTestApp(options.env ?? {});
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const gatewayUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const sim = await AcquirerSimulator.start();
  const config = sim.addPartner({
    gatewayUrl,
    notifyVerification: options.notifyVerification ?? 'asymmetric',
    signatureEncoding: options.signatureEncoding ?? 'base64',
  });
  const { id: sourceId } = await addSnapSource(t.deps, t.merchant.id, config);
  let counter = 0;
  return {
    t,
    sim,
    sourceId,
    gatewayUrl,
    config,
    async cqris(params = {}, key = t.liveKey) {
      const query = new URLSearchParams({ amount: String(10_000 + ++counter * 500), ...params });
      const res = await fetch(`${gatewayUrl}/api/payment-gateway/cqris?${query}`, { headers: { 'X-Api-Key': key } });
      return { status: res.status, headers: res.headers, body: await res.json() };
    },
    async cstatus(trxid, key = t.liveKey) {
      const res = await fetch(`${gatewayUrl}/api/payment-gateway/cstatus?trxid=${trxid}`, {
        headers: { 'X-Api-Key': key },
      });
      if (res.status !== 200) throw new Error(`cstatus ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { data: unknown }).data;
    },
    async close() {
      await sim.close();
      await t.close();
    },
  };
}

/** POSTs a (possibly tampered) notification built by the simulator with send: false. */
export async function postNotification(n: { url: string; headers: Record<string, string>; body: string }) {
  const res = await fetch(n.url, { method: 'POST', headers: n.headers, body: n.body });
  return { status: res.status, body: (await res.json()) as { responseCode: string; responseMessage: string } };
}
