// `npm run test:deploy`: the image and the compose stack, built and run in Docker (issue 38). Not part of
// `npm test`, which needs only Node.js and npm. One file at a time: the cases share one Docker daemon,
// the stand-in base images and the image built once in global-setup.ts.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/deploy/**/*.test.ts'],
    globalSetup: ['test/deploy/global-setup.ts'],
    pool: 'forks',
    poolOptions: { forks: { singleFork: true } },
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 600_000,
  },
});
