// `npm run build`, and what bin/qris-gateway.mjs runs when dist/ is missing or older than src/: compiles
// the TypeScript, then copies the browser files (src/web/assets/: served as they are, so tsc leaves them
// alone) beside the compiled module that serves them. It builds into dist.next/ and swaps it in whole
// (scripts/build-steps.mjs), so it can run while a gateway serves from dist/: run it before a restart.
// Each step is said on stderr, and every 10 s while tsc runs.
//
// --if-stale: build only if dist/ is still stale once the lock is held (the entry point: another process
// starting at the same time may have just built it).
import { spawn } from 'node:child_process';
import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAndSwap, distIsFresh, progress, withBuildLock } from './build-steps.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const ifStale = process.argv.includes('--if-stale');

/** Runs tsc into `outDir`, its messages shown as they come; resolves to its exit code. */
function compile(outDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', outDir], {
      stdio: 'inherit',
    });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

class CompileFailed extends Error {
  constructor(code) {
    super(`tsc exited with ${code}`);
    this.code = code;
  }
}

const log = progress();
try {
  await withBuildLock(
    root,
    async () => {
      if (ifStale && distIsFresh(root)) return;
      await buildAndSwap(root, async (next) => {
        log.step(1, 3, 'compiling TypeScript into dist.next/ (the long step: about a minute on a small machine)');
        const stop = log.heartbeat('compiling TypeScript');
        const code = await compile(next).finally(stop);
        if (code !== 0) throw new CompileFailed(code);
        log.step(2, 3, 'copying src/web/assets/');
        cpSync(join(root, 'src', 'web', 'assets'), join(next, 'web', 'assets'), { recursive: true });
        log.step(3, 3, 'putting dist.next/ in place of dist/');
      });
      log.done('built dist/');
    },
    { onWait: () => process.stderr.write('qris-gateway: another process is building dist/; waiting for it...\n') },
  );
} catch (err) {
  process.stderr.write(`qris-gateway: build failed (${err.message}); dist/ is left as it was\n`);
  process.exitCode = err instanceof CompileFailed ? err.code : 1;
}
