// The gateway's log is written in chunks (http/logger.ts), not line by line: a line must still reach
// standard output on its own while the gateway is quiet, and none may be lost at a graceful stop. A real
// gateway process, its standard output read as an operator's log collector reads it.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_FLUSH_MS } from '../../../src/http/logger.js';
import { freshDatabaseUrl } from '../../helpers/context.js';
import { startGateway, type GatewayProcess } from '../../helpers/processes.js';

let dir: string;
let drop: () => Promise<void>;
let gateway: GatewayProcess;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'qg-log-lines-'));
  const fresh = await freshDatabaseUrl(dir);
  drop = fresh.drop;
  gateway = await startGateway({ DATABASE_URL: fresh.url, DEMO_MERCHANT: 'false', LOG_LEVEL: 'info' });
}, 120_000);

afterAll(async () => {
  await gateway?.stop('SIGKILL');
  await drop?.();
  rmSync(dir, { recursive: true, force: true });
});

/** The access lines of requests carrying this request id prefix, as parsed JSON. */
function accessLines(prefix: string): Array<Record<string, unknown>> {
  return gateway
    .output()
    .split('\n')
    .filter((line) => line.includes(`"reqId":"${prefix}`))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === 'request');
}

async function get(path: string, requestId: string): Promise<void> {
  const res = await fetch(gateway.url + path, { headers: { 'x-request-id': requestId } });
  await res.arrayBuffer();
}

describe('log lines', () => {
  it('a single request on a quiet gateway is logged without waiting for more', async () => {
    await get('/healthz', 'quiet-0001');
    // Far shorter than a chunk (4 KB): only the periodic flush can write it. Polled, not timed: the
    // deadline only ends a hung test.
    const deadline = Date.now() + 30_000;
    while (accessLines('quiet-').length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, LOG_FLUSH_MS / 2));
    const lines = accessLines('quiet-');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ reqId: 'quiet-0001', method: 'GET', url: '/healthz', status: 200 });
    // Whole lines only: a chunk never ends mid-line.
    expect(gateway.output().endsWith('\n')).toBe(true);
  });

  it('every line of a burst is in the log once the gateway has stopped gracefully', async () => {
    const ids = Array.from({ length: 300 }, (_, i) => `burst-${String(i).padStart(4, '0')}`);
    for (let i = 0; i < ids.length; i += 30) {
      await Promise.all(ids.slice(i, i + 30).map((id) => get(id.endsWith('7') ? '/no-such-path' : '/healthz', id)));
    }
    // Stopped at once, with lines still in the buffer: the exit writes them.
    expect(await gateway.stop('SIGTERM')).toBe(0);
    // The process has exited, but what it wrote last may still be in the pipe: read to the end.
    const streams = [gateway.child.stdout!, gateway.child.stderr!];
    await Promise.all(streams.map((s) => (s.closed ? undefined : once(s, 'close'))));
    const lines = accessLines('burst-');
    expect(lines.map((l) => l.reqId).sort()).toEqual(ids);
    for (const line of lines) expect(line.status).toBe(String(line.reqId).endsWith('7') ? 404 : 200);
    // The last line the process writes, just before it exits.
    expect(gateway.output()).toContain('"msg":"stopped"');
  });
});

describe('log lines after beforeExit', () => {
  // pino's destination would be ended at the first 'drain' after 'beforeExit' if pino registered that
  // hook (its code has the branch); a process that logs on after it (a beforeExit listener that starts
  // more work) must neither throw nor lose lines. The bursts are larger than sonic-boom's high-water mark,
  // so its writes are refused and a 'drain' follows each.
  it('bursts logged from beforeExit and from timers it starts all reach standard output', async () => {
    const script = [
      `import { createLogger } from ${JSON.stringify(new URL('../../../src/http/logger.ts', import.meta.url).pathname)};`,
      `const log = createLogger({ level: 'info' });`,
      `const pad = 'x'.repeat(500);`,
      `let round = 0;`,
      `log.info('start');`,
      `process.on('beforeExit', () => {`,
      `  if (round >= 3) return;`,
      `  round += 1;`,
      `  const r = round;`,
      `  for (let i = 0; i < 100; i++) log.info({ pad }, 'burst ' + r + ' line ' + i);`,
      `  setTimeout(() => { for (let i = 0; i < 100; i++) log.info({ pad }, 'later ' + r + ' line ' + i); }, 30);`,
      `});`,
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const [code] = (await once(child, 'close')) as [number | null];
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const messages = stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    const expected = ['start'];
    for (const r of [1, 2, 3]) {
      for (let i = 0; i < 100; i++) expected.push(`burst ${r} line ${i}`);
      for (let i = 0; i < 100; i++) expected.push(`later ${r} line ${i}`);
    }
    expect(messages).toEqual(expected);
  }, 60_000);
});
