// @ts-check
// Children, temporary directories and PostgreSQL schemas, registered as they are made so that every one
// is killed or removed on success, failure or Ctrl-C; and the small waits around a child process.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const children = new Set();
export const cleanups = [];
let cleaning = null;

export function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function killAll() {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

export async function cleanup() {
  cleaning ??= (async () => {
    killAll();
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        process.stderr.write(`bench: cleanup: ${err.message}\n`);
      }
    }
  })();
  return cleaning;
}

// A synchronous last resort: if the process exits some other way, no child may outlive it.
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping\n`);
    void cleanup().finally(() => process.exit(130));
  });
}

export const workDir = mkdtempSync(join(tmpdir(), 'qg-bench-'));
cleanups.push(() => rmSync(workDir, { recursive: true, force: true }));

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => resolvePort(port));
    });
  });
}

export async function waitHttp(url, child, describe) {
  const deadline = Date.now() + 180_000; // a first run may compile TypeScript
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${describe} exited early`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${describe} did not start within 3 minutes`);
    await sleep(100);
  }
}

export async function stopChild(child, graceMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
