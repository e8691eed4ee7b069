import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.js';
import { parseSnapConfig } from '../../../src/payment-sources/snap/config.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';

let t: TestApp;
let gatewayUrl: string;
beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  gatewayUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t.close());

describe('dev acquirer', () => {
  it('prints its base URL and a config that works end to end, then stops on SIGINT', async () => {
    const out: string[] = [];
    const before = new Set(process.listeners('SIGINT'));
    const running = runCli(
      ['dev', 'acquirer', '--port', '0', '--gateway-url', gatewayUrl, '--json'],
      { out: (s) => void out.push(s), err: () => {} },
      {
        DATABASE_URL: t.databaseUrl,
      },
    );
    const deadline = Date.now() + 10_000;
    while (out.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    try {
      expect(out.join('').endsWith('\n')).toBe(true);
      const printed = JSON.parse(out.join('')) as { baseUrl: string; payUrl: string; config: Record<string, unknown> };
      expect(printed.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(printed.config.baseUrl).toBe(printed.baseUrl);
      expect(parseSnapConfig(printed.config).notifyVerification).toBe('asymmetric');

      // What an operator does next: add the source, create a transaction, pay it at the simulator.
      // through the CLI's own contract: source add --type snap --config FILE --json.
      const configFile = join(t.dir, 'snap-source.json');
      writeFileSync(configFile, JSON.stringify(printed.config, null, 2));
      const added: string[] = [];
      const code = await runCli(
        ['source', 'add', '--merchant', t.merchant.id, '--type', 'snap', '--config', configFile, '--json'],
        { out: (s) => void added.push(s), err: () => {} },
        { DATABASE_URL: t.databaseUrl },
      );
      expect(code).toBe(0);
      const source = JSON.parse(added.join('')) as { id: string };
      expect(source.id).toMatch(/^src_/);
      expect(added.join('')).not.toContain(String(printed.config.clientSecret));
      const created = await fetch(`${gatewayUrl}/api/payment-gateway/cqris?amount=15000`, {
        headers: { 'X-Api-Key': t.liveKey },
      });
      const trxid = ((await created.json()) as { data: { trxid: string } }).data.trxid;
      const paid = await fetch(printed.payUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ reference: trxid }),
      });
      expect(paid.status).toBe(200);
      const status = await fetch(`${gatewayUrl}/api/payment-gateway/cstatus?trxid=${trxid}`, {
        headers: { 'X-Api-Key': t.liveKey },
      });
      expect(((await status.json()) as { data: { status: string } }).data.status).toBe('paid');
    } finally {
      // Ctrl-C, delivered only to the command's own listener (not to the test runner's, if any).
      for (const listener of process.listeners('SIGINT')) if (!before.has(listener)) (listener as () => void)();
    }
    expect(await running).toBe(0);
  });
});
