// Once per `npm run test:deploy`: a Docker daemon (docker-daemon.ts), the stand-in base images where this
// machine needs them (stand-ins.ts), and the gateway's image built from the Dockerfile. The teardown removes
// the image, and stops a daemon it started; on its own daemon the stand-ins and the build's stage images
// stay cached for the next run (image.ts), elsewhere the stage images go too.
import type { TestProject } from 'vitest/node';
import { leftovers, startDocker } from './helpers/docker-daemon.js';
import { buildImage } from './helpers/image.js';
import { ensureStandIns } from './helpers/stand-ins.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dockerHost: string;
    ownDaemon: boolean;
    gatewayImage: string;
    /** Seconds each step of the setup took, for the report. */
    setupTimings: Record<string, number>;
  }
}

export default async function setup(project: TestProject) {
  const timings: Record<string, number> = {};
  const timed = async <T>(step: string, fn: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    try {
      return await fn();
    } finally {
      timings[step] = Math.round((Date.now() - started) / 100) / 10;
    }
  };
  const daemon = await timed('dockerd', () => startDocker());
  // What a run killed half-way left on this daemon's data root is not this run's to answer for: removed
  // and said here, so the teardown's check names only what this run left.
  if (daemon.own) {
    const stale = await leftovers(daemon);
    if (stale.length > 0) process.stdout.write(`deploy test: removed what an earlier run left: ${stale.join(', ')}\n`);
  }
  let tag = `qris-gateway:deploy-test-${Math.random().toString(36).slice(2, 8)}`;
  let removeImages = async () => {};
  const cleanup = async () => {
    await removeImages();
    // On its own daemon nothing but the cache may outlive the run: a container, volume or network left
    // over is a case that did not clean up. Removed here, and named as a failure.
    const left = daemon.own ? await leftovers(daemon) : [];
    await daemon.stop();
    if (left.length > 0) throw new Error(`the deploy test left behind (now removed): ${left.join(', ')}`);
  };
  try {
    await timed('stand-ins', () => ensureStandIns(daemon));
    // QG_DEPLOY_IMAGE: test an image built already (neither built nor removed here).
    if (process.env.QG_DEPLOY_IMAGE) tag = process.env.QG_DEPLOY_IMAGE;
    else removeImages = await timed('image build', () => buildImage(daemon, tag, daemon.own));
  } catch (err) {
    // The setup's own failure is the one to show; what the cleanup found is added to it, not put instead.
    const left = await cleanup().then(
      () => '',
      (cleanupErr: Error) => `\n(and ${cleanupErr.message})`,
    );
    if (left && err instanceof Error) err.message += left;
    throw err;
  }
  process.stdout.write(`deploy test setup (s): ${JSON.stringify(timings)}\n`);
  project.provide('dockerHost', daemon.host);
  project.provide('ownDaemon', daemon.own);
  project.provide('gatewayImage', tag);
  project.provide('setupTimings', timings);
  return cleanup;
}
