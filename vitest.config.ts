import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The examples import the client package by its name, as an integrator's code does (tsconfig.json maps it too).
  resolve: { alias: { '@qris-gateway/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: more workers than that only adds contention for the SQLite fsyncs.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
