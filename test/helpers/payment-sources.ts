import { runCli } from '../../src/cli/main.js';
import type { TestApp } from './context.js';

/** Listens on a loopback port for tests that go over real HTTP; returns the base URL. */
export async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: Record<string, any> | null;
}

/** runCli in-process against the test's database (its own connection, as a separate process would have). */
export async function cli(
  t: { databaseUrl: string },
  argv: string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    argv,
    { out: (s) => void out.push(s), err: (s) => void err.push(s) },
    { DATABASE_URL: t.databaseUrl, QRIS_OPERATOR: 'test-operator', ...env },
  );
  const stdout = out.join('');
  let json: Record<string, any> | null = null;
  // Usage errors (exit 2) are commander's, printed on stderr only.
  if (argv.includes('--json') && stdout !== '') {
    const lines = stdout.trimEnd().split('\n');
    if (lines.length !== 1) throw new Error(`--json printed ${lines.length} lines: ${stdout}`);
    json = JSON.parse(lines[0]!) as Record<string, any>;
  }
  return { code, stdout, stderr: err.join(''), json };
}

export async function createLive(
  base: string,
  key: string,
  amount: number,
  extra: Record<string, string> = {},
): Promise<Record<string, any>> {
  const res = await fetch(
    `${base}/api/payment-gateway/cqris?${new URLSearchParams({ amount: String(amount), ...extra })}`,
    { headers: { 'x-api-key': key } },
  );
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: Record<string, any> }).data;
}

export async function status(base: string, key: string, trxid: string): Promise<Record<string, any>> {
  const res = await fetch(`${base}/api/payment-gateway/cstatus?trxid=${trxid}`, { headers: { 'x-api-key': key } });
  if (res.status !== 200) throw new Error(`cstatus failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: Record<string, any> }).data;
}

/** What must not change when a request is refused: the merchant's payments and events. */
export async function footprint(t: TestApp): Promise<{ payments: number; events: number }> {
  const payments = await t.deps.db
    .selectFrom('payments')
    .select('id')
    .where('merchant_id', '=', t.merchant.id)
    .execute();
  const events = await t.deps.db.selectFrom('events').select('id').where('merchant_id', '=', t.merchant.id).execute();
  return { payments: payments.length, events: events.length };
}

/** WIB wall-clock text ("YYYY-MM-DD HH:mm:ss", no offset) as mutation feeds write it. */
export function wib(ms: number, withSeconds = true): string {
  const d = new Date(ms + 7 * 3_600_000).toISOString();
  return `${d.slice(0, 10)} ${d.slice(11, withSeconds ? 19 : 16)}`;
}
