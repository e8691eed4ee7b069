import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { buildApp } from './http/app.js';
import { createLogger } from './http/logger.js';
import { openRuntime, type Runtime } from './runtime.js';
import { ensureDemoMerchant } from './services/ensure-demo-merchant.js';
import { startExpirySweeper } from './workers/expiry-sweeper.js';

export interface RunningServer {
  app: FastifyInstance;
  runtime: Runtime;
  url: string;
  stop(): Promise<void>;
}

export interface ServeOptions {
  logger?: Logger;
  /** Where the first-run banner goes (standard output by default). */
  print?: (text: string) => void;
}

export async function serve(config: Config, options: ServeOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const print = options.print ?? ((text: string) => void process.stdout.write(text));
  const runtime = await openRuntime(config);
  const demo = config.demoMerchant ? await ensureDemoMerchant(runtime.deps) : null;
  const app = await buildApp({ deps: runtime.deps, logger });
  const sweeper = startExpirySweeper(runtime.deps, logger, config.sweepIntervalMs);
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;

  if (demo) {
    // Printed, not logged: the sandbox key is shown once, on purpose, to the operator at the terminal.
    print(
      [
        '',
        `qris-gateway is running at ${url}`,
        `Created a sandbox merchant (${demo.merchant.id}) and a test key, shown only now:`,
        '',
        `  ${demo.key.key}`,
        '',
        `Docs: ${url}/docs`,
        'Try:',
        `  curl -H 'X-Api-Key: ${demo.key.key}' '${url}/api/payment-gateway/cqris?amount=10000'`,
        '',
      ].join('\n'),
    );
  }

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await app.close();
      await sweeper.stop();
      await runtime.close();
    })());
  return { app, runtime, url, stop };
}
