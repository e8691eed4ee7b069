import type { RunningServer } from '../server.js';

/**
 * Waits for SIGTERM or SIGINT, then stops the server gracefully (server.ts). A request or a webhook send
 * that hangs must not keep the process alive: after `timeoutMs` it exits anyway, with code 1 and a log
 * line saying so. Whatever is cut then was never acknowledged: every answered write is on disk, and a
 * claimed webhook or e-mail goes out again once its claim lapses (at least once). A second signal ends
 * the process at once (Node's default, restored by removing the handlers).
 */
export function stopOnSignal(server: RunningServer, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const shutdown = (signal: NodeJS.Signals) => {
      process.off('SIGINT', shutdown);
      process.off('SIGTERM', shutdown);
      server.logger.info({ signal, timeout_ms: timeoutMs }, 'shutting down');
      const started = Date.now();
      // Unref'd: a shutdown that ends in time lets the process exit without waiting for it.
      setTimeout(() => {
        server.logger.error(
          { timeout_ms: timeoutMs },
          'shutdown did not finish within SHUTDOWN_TIMEOUT_MS; exiting anyway',
        );
        process.exit(1);
      }, timeoutMs).unref();
      server.stop().then(() => {
        server.logger.info({ ms: Date.now() - started }, 'stopped');
        resolve();
      }, reject);
    };
    process.on('SIGINT', shutdown);
    process.on('SIGTERM', shutdown);
  });
}
