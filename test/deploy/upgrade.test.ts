// issue 38, part 4, in containers: the compose stack (SQLite, Caddy in front) runs the previous release's
// image and records transactions; then this release's image starts on the same volume, migrates with a
// copy of the database written first, and keeps every transaction; then an image with one more migration,
// which fails, leaves the database file byte for byte as it was, keeps its copy, and refuses to start with
// a message naming it; this release starts again on it.
//
// The previous release: the last commit before the newest migration, so that the upgrade has one to run
// (the commit before the image existed had every migration this release has, and its upgrade would
// migrate nothing). Built from its sources with this checkout's Dockerfile.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MIGRATIONS } from '../../src/storage/migrate.js';
import { Stack } from './helpers/compose.js';
import type { DockerDaemon } from './helpers/docker-daemon.js';
import { https, type HttpsTarget, waitForHttps } from './helpers/https-client.js';
import { docker, removeImage } from './helpers/image.js';
import {
  buildFailingRelease,
  buildRelease,
  commitOf,
  FAILING_MIGRATION,
  lastCommitAdding,
  migrationsAt,
} from './helpers/releases.js';

const daemon: DockerDaemon = { host: inject('dockerHost'), own: inject('ownDaemon'), stop: async () => {} };
const image = inject('gatewayImage');
const DOMAIN = 'pay.qris-gateway.test';
const LATEST = Object.keys(MIGRATIONS).sort().at(-1)!;

/** The commit before the one that added the newest migration's file. */
const previousRelease = () => commitOf(`${lastCommitAdding(`src/storage/migrations/${LATEST}.ts`)}^`);

describe('an upgrade in containers, from the previous release', () => {
  let stack: Stack;
  let target: HttpsTarget;
  let previous = '';
  let previousImage = '';
  let failingImage = '';
  let key = '';
  const trxids: string[] = [];

  /** Every file of the data volume with its SHA-256, read by a container of its own (the gateway's may be stopped). */
  const volumeFiles = async (): Promise<Map<string, string>> => {
    const { stdout } = await docker(daemon, [
      'run',
      '--rm',
      '--network',
      'none',
      '--entrypoint',
      'sh',
      '-v',
      `${stack.project}_data:/data`,
      image,
      '-c',
      'cd /data && sha256sum -- *',
    ]);
    return new Map(
      stdout
        .trim()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => {
          const [hash, name] = line.split(/\s+\*?/, 2);
          return [name!, hash!];
        }),
    );
  };
  const gatewayLogs = async () => {
    const r = await stack.compose(['logs', '--no-color', 'gateway'], { allowFailure: true });
    return r.stdout + r.stderr;
  };
  const statusOf = async (trxid: string) =>
    JSON.parse(
      (await https(target, 'GET', `/api/payment-gateway/cstatus?trxid=${trxid}`, { headers: { 'x-api-key': key } }))
        .body,
    ).data.status as string;

  beforeAll(async () => {
    previous = previousRelease();
    previousImage = await buildRelease(daemon, previous, daemon.own);
    failingImage = await buildFailingRelease(daemon, image);
    stack = await Stack.create(daemon, { image: previousImage, domain: DOMAIN });
    await stack.up();
    const ca = await stack.caddyRoot();
    target = { domain: DOMAIN, port: stack.httpsPort, ca };
    await waitForHttps(target, '/readyz', 180_000);
  });

  afterAll(async () => {
    await stack?.destroy();
    if (failingImage) await removeImage(daemon, failingImage);
    if (previousImage && !daemon.own) await removeImage(daemon, previousImage);
  });

  it('the previous release records transactions', async () => {
    const merchants = await stack.cli<{ items: Array<{ id: string }> }>(['merchant', 'list']);
    key = (await stack.cli<{ key: string }>(['key', 'create', '--merchant', merchants.items[0]!.id, '--mode', 'test']))
      .key;
    for (const amount of [25_000, 30_000]) {
      const create = await https(target, 'POST', '/api/payment-gateway/cqris', {
        headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded' },
        body: `amount=${amount}`,
      });
      expect(create.status, create.body).toBe(201);
      trxids.push(JSON.parse(create.body).data.trxid);
    }
    const pay = await https(target, 'POST', `/api/payment-gateway/simulate?trxid=${trxids[0]}`, {
      headers: { 'x-api-key': key },
    });
    expect(pay.status, pay.body).toBe(200);
    expect([...(await volumeFiles()).keys()].filter((name) => name.endsWith('.sqlite'))).toEqual([]);
  });

  it('this release migrates it at its start, a copy of the database written first, and keeps every transaction', async () => {
    const from = migrationsAt(previous).at(-1)!;
    expect(
      from < LATEST,
      `the previous release (${previous}) must lack a migration: it has ${from}, this release ${LATEST}`,
    ).toBe(true);
    stack.setEnv({ GATEWAY_IMAGE: image });
    await stack.up();
    await waitForHttps(target, '/readyz', 180_000);
    const copies = [...(await volumeFiles()).keys()].filter((name) => name.endsWith('.sqlite'));
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatch(
      new RegExp(`^qris-gateway-qris-gateway\\.db-before-${from}-to-${LATEST}-\\d{8}T\\d{9}Z\\.sqlite$`),
    );
    const logs = await gatewayLogs();
    expect(logs).toContain('database migrated');
    expect(logs).toContain(copies[0]);
    expect(await statusOf(trxids[0]!)).toBe('paid');
    expect(await statusOf(trxids[1]!)).toBe('pending');
  });

  it('a migration that fails leaves the database as it was and keeps its copy; the gateway refuses to start and names the copy', async () => {
    await stack.compose(['stop', 'gateway']);
    const before = await volumeFiles();
    stack.setEnv({ GATEWAY_IMAGE: failingImage });
    await stack.up();
    // restart: unless-stopped starts it again and again; each start fails the same way.
    const deadline = Date.now() + 120_000;
    let logs = await gatewayLogs();
    while (!logs.includes(`migration ${FAILING_MIGRATION} failed`)) {
      if (Date.now() > deadline) throw new Error(`no migration failure in the gateway's log:\n${logs.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 1000));
      logs = await gatewayLogs();
    }
    expect(logs).toContain('a deliberate failure of the deploy test');
    expect(logs).toContain('the database was left as it was');
    const ready = await https(target, 'GET', '/readyz');
    expect(ready.status).not.toBe(200);
    // Let it fail a few more times (started again by its restart policy), then stop it and look at the volume.
    const gateway = await stack.container('gateway');
    const restarts = async () =>
      Number((await docker(daemon, ['inspect', '--format', '{{.RestartCount}}', gateway])).stdout.trim());
    const restartDeadline = Date.now() + 60_000;
    while ((await restarts()) < 3) {
      if (Date.now() > restartDeadline)
        throw new Error(`the failing gateway was restarted ${await restarts()} times in 60 s`);
      await new Promise((r) => setTimeout(r, 500));
    }
    await stack.compose(['stop', 'gateway']);
    const after = await volumeFiles();
    expect(after.get('qris-gateway.db')).toBe(before.get('qris-gateway.db'));
    for (const [name, hash] of before) expect(after.get(name), name).toBe(hash);
    const added = [...after.keys()].filter((name) => !before.has(name));
    // The copy taken before the failing migration, named in the message; one, however often it was started.
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(
      new RegExp(`^qris-gateway-qris-gateway\\.db-before-${LATEST}-to-${FAILING_MIGRATION}-\\d{8}T\\d{9}Z\\.sqlite$`),
    );
    expect(logs).toContain(`The copy taken before the upgrade is kept at /data/${added[0]}`);

    // This release starts on it again, every transaction there.
    stack.setEnv({ GATEWAY_IMAGE: image });
    await stack.up();
    await waitForHttps(target, '/readyz', 180_000);
    expect(await statusOf(trxids[0]!)).toBe('paid');
    expect(await statusOf(trxids[1]!)).toBe('pending');
  });
});
