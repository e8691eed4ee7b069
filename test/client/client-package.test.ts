// The client package as an integrator installs it: it builds to ESM with type declarations, its
// package.json points at what the build makes, it has no runtime dependency, and a TypeScript program
// using it type-checks against the built declarations alone.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/context.js';

const packageDir = fileURLToPath(new URL('../../packages/client', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));

// No database here: once, on the SQLite pass.
describe.skipIf(onPostgres)('the @qris-gateway/client package', () => {
  let installed: string;

  beforeAll(() => {
    // Built with the package's own tsconfig, into a copy laid out as node_modules would hold it.
    const dir = mkdtempSync(join(tmpdir(), 'qg-client-package-'));
    installed = join(dir, 'node_modules', '@qris-gateway', 'client');
    mkdirSync(installed, { recursive: true });
    copyFileSync(join(packageDir, 'package.json'), join(installed, 'package.json'));
    const build = spawnSync(
      process.execPath,
      [tsc, '-p', join(packageDir, 'tsconfig.json'), '--outDir', join(installed, 'dist')],
      { encoding: 'utf8' },
    );
    expect(build.stdout + build.stderr).toBe('');
    expect(build.status).toBe(0);
  }, 120_000);

  afterAll(() => {
    if (installed) rmSync(join(installed, '..', '..', '..'), { recursive: true, force: true });
  });

  it('has no runtime dependency, and its exports name files the build made', () => {
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.type).toBe('module');
    const entry = manifest.exports['.'];
    expect(existsSync(join(installed, entry.default))).toBe(true);
    expect(existsSync(join(installed, entry.types))).toBe(true);
    expect(readFileSync(join(installed, entry.types), 'utf8')).toContain('QrisGatewayClient');
  });

  it('loads in plain Node by its name and exports the client, its error and verifyWebhook', () => {
    const program = `
      import * as pkg from '@qris-gateway/client';
      const client = new pkg.QrisGatewayClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_test_abc' });
      console.log(JSON.stringify({
        exports: Object.keys(pkg).sort(),
        methods: ['createQris', 'getStatus', 'cancel', 'listTransactions', 'qrPng', 'waitForPayment', 'simulatePayment'].filter((m) => typeof client[m] === 'function'),
        error: new pkg.QrisGatewayError({ code: 'timeout', status: 0, message: 'm' }) instanceof Error,
      }));`;
    const root = join(installed, '..', '..', '..');
    writeFileSync(join(root, 'program.mjs'), program);
    const run = spawnSync(process.execPath, [join(root, 'program.mjs')], { cwd: root, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      exports: ['QrisGatewayClient', 'QrisGatewayError', 'WebhookVerificationError', 'verifyWebhook'],
      methods: ['createQris', 'getStatus', 'cancel', 'listTransactions', 'qrPng', 'waitForPayment', 'simulatePayment'],
      error: true,
    });
  });

  it('types a program that uses it, from the declarations alone, and catches a misuse', () => {
    const root = join(installed, '..', '..', '..');
    const good = `
      import { QrisGatewayClient, QrisGatewayError, verifyWebhook, type Transaction, type WebhookEvent } from '@qris-gateway/client';
      const client = new QrisGatewayClient({ baseUrl: 'https://pay.example.com', apiKey: 'sk_test_abc' });
      export async function order(): Promise<string> {
        const tx: Transaction = await client.createQris({ amount: 10000, ref: 'order-1' });
        const done = await client.waitForPayment(tx.trxid, { timeout: 60_000 });
        const status: 'pending' | 'paid' | 'expired' | 'cancelled' = done.status;
        return status;
      }
      export function hook(body: string, headers: Record<string, string>): number {
        const event: WebhookEvent = verifyWebhook(body, headers, 'whsec_abc=');
        return event.type === 'payment.unmatched' ? event.data.amount : event.data.total_amount;
      }
      export const isError = (e: unknown) => e instanceof QrisGatewayError && e.code === 'quota_exceeded';
    `;
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        types: [] as string[],
        typeRoots: [] as string[],
        skipLibCheck: false,
        lib: ['ES2023', 'DOM'],
      },
      files: ['program.ts'],
    };
    // The declarations need Node's types (fetch, AbortSignal, Buffer): the consumer has them, as ours does.
    tsconfig.compilerOptions.types = ['node'];
    tsconfig.compilerOptions.typeRoots = [fileURLToPath(new URL('../../node_modules/@types', import.meta.url))];
    writeFileSync(join(root, 'tsconfig.json'), JSON.stringify(tsconfig));
    writeFileSync(join(root, 'program.ts'), good);
    const ok = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { encoding: 'utf8' });
    expect(ok.stdout + ok.stderr).toBe('');

    writeFileSync(
      join(root, 'program.ts'),
      `${good}\nexport const wrong: number = (null as unknown as Transaction).trxid;\n`,
    );
    const bad = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { encoding: 'utf8' });
    expect(bad.stdout).toContain("Type 'string' is not assignable to type 'number'");
  }, 120_000);
});
