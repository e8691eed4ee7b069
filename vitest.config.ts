import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: more workers than that only adds contention for the SQLite fsyncs.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
