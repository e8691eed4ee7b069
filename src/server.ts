import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config, Role } from './config.js';
import { buildApp } from './app.js';
import { createLogger } from './http/logger.js';
import { openRuntime, type Runtime } from './runtime.js';
import { ensureDemoMerchant } from './services/merchants/ensure-demo-merchant.js';
import { findDemoMerchantId } from './services/merchants/find-demo-merchant.js';
import { operatorExists } from './services/users/operator-exists.js';
import { startBanner, workerBanner, type StartFacts } from './start-banner.js';
import { StartupError } from './startup-error.js';
import { loadAllAssets } from './web/static-assets.js';
import { startBackgroundWork } from './workers/index.js';

export interface RunningServer {
  /** Null for the worker role, which serves no HTTP. */
  app: FastifyInstance | null;
  runtime: Runtime;
  url: string | null;
  logger: Logger;
  /** The background jobs this process runs (none for the api role): workers/index.ts. */
  jobs: readonly string[];
  /**
   * Stops gracefully: no new connections; every request received is answered; the background jobs end
   * their current sends; pending writes are committed; then the database closes. Unbounded by itself:
   * `serve` on SIGTERM bounds it with SHUTDOWN_TIMEOUT_MS (cli/stop-on-signal.ts).
   */
  stop(): Promise<void>;
}

export interface ServeOptions {
  logger?: Logger;
  /** Where the start banner goes (standard output by default). */
  print?: (text: string) => void;
  /** How CLI commands are run where this server runs, for the banner's hints (default `qris-gateway`). */
  cli?: string;
  /** `api` serves requests only, `worker` runs background work only, `all` (default) both. */
  role?: Role;
}

export async function serve(config: Config, options: ServeOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const print = options.print ?? ((text: string) => void process.stdout.write(text));
  const role = options.role ?? 'all';
  const runtime = await openRuntime(config, Date.now, { server: true, logger });
  if (role === 'worker') {
    const background = startBackgroundWork(runtime.deps);
    logger.info({ role }, 'worker started');
    print(workerBanner(config.databaseUrl));
    const stop = async () => {
      await background.stop();
      await runtime.close();
    };
    return { app: null, runtime, url: null, logger, jobs: background.jobs, stop };
  }
  let app: FastifyInstance | null = null;
  let demo: StartFacts['demo'] = null;
  let hasOperator = false;
  try {
    // Before it listens, every file it serves is read: a build swapped in while it runs changes nothing it serves.
    loadAllAssets();
    app = await buildApp({ deps: runtime.deps });
    await listenOn(app, config);
    // Only once listening: a first start that cannot bind (port taken) must not create the sandbox key
    // and exit without showing it, because later starts find the merchant and cannot show its key again.
    if (config.demoMerchant) {
      const made = await ensureDemoMerchant(runtime.deps);
      const existing = made ? null : await findDemoMerchantId(runtime.deps);
      demo = made
        ? { merchantId: made.merchant.id, key: made.key.key }
        : existing
          ? { merchantId: existing, key: null }
          : null;
    }
    hasOperator = config.consoleEnabled && (await operatorExists(runtime.deps));
  } catch (err) {
    await app?.close();
    await runtime.close();
    throw err;
  }
  const background = role === 'all' ? startBackgroundWork(runtime.deps) : null;
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;

  // Printed, not logged: a first start's sandbox key is shown once, on purpose, to the operator at the terminal.
  print(
    startBanner({
      url,
      consoleEnabled: config.consoleEnabled,
      databaseUrl: config.databaseUrl,
      demo,
      cli: options.cli ?? 'qris-gateway',
      operatorExists: hasOperator,
    }),
  );

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      // Side by side: the server drains its connections (graceful-close.ts) while the jobs finish what
      // they are sending; the database closes after both, once the last batch is committed.
      const ended = await Promise.allSettled([app.close(), background?.stop()]);
      await runtime.close();
      for (const e of ended) if (e.status === 'rejected') throw e.reason;
    })());
  return { app, runtime, url, logger, jobs: background?.jobs ?? [], stop };
}

/** A port another process holds is the operator's to fix: say which, and which setting moves it. */
async function listenOn(app: FastifyInstance, config: Config): Promise<void> {
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    throw new StartupError(
      'port_in_use',
      `port ${config.port} on ${config.host} is already in use (EADDRINUSE): stop what listens there, or set PORT to a free port`,
    );
  }
}
