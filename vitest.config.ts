import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  // The examples import the client package by its name, as an integrator's code does (tsconfig.json maps it too).
  resolve: {
    alias: { '@qris-gateway/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)) },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // test/deploy/ is `npm run test:deploy` (its own config): the Docker image and compose stack, the
    // packaged gateway installed and started, the systemd unit; never `npm test`.
    exclude: [...configDefaults.exclude, 'test/deploy/**'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: more workers than that only adds contention for the SQLite fsyncs.
    // Files share a worker's loaded modules instead of each loading the app's ~400 modules again: that
    // load was about a fifth of the suite's time (vitest's 'collect', 200 s of a 540 s SQLite pass). It is
    // safe because the code keeps no state in modules (test/unit/no-module-state.test.ts) and helpers
    // register their hooks per call, never at a module's top level.
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
  },
});
