// The web's routes as the wiring mounts them (src/app.ts), after the API's: the payer's pages, then,
// when the console is on, the console with its account mails.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.js';
import { AccountMailQueue } from '../mail/account-mail-queue.js';
import { createSmtpSender } from '../mail/smtp.js';
import type { Deps } from '../services/deps.js';
import { startStatusWatch, type StatusWatch } from '../services/transactions/status-watch.js';
import { sendError } from '../wire/error-reply.js';
import { checkoutRoutes } from './checkout-routes.js';
import { consoleRoutes } from './console/routes.js';
import { paymentLinkRoutes } from './payment-links.js';
import { receiptRoutes } from './receipts.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The checkout pages' status watch (status-watch.ts), for tests that count its rounds. */
    statusWatch: StatusWatch;
  }
}

/** The checkout pages (with the status watch they hear changes by), payment links and receipts. */
export async function mountPayerPages(app: FastifyInstance, deps: Deps): Promise<void> {
  const { config } = deps;
  // Checkout pages hear of status changes made by any process (status-watch.ts); stopped on close, after
  // preClose has ended the pages' streams and before the database closes.
  const watch = startStatusWatch(deps, config.statusWatchIntervalMs);
  app.decorate('statusWatch', watch);
  app.addHook('onClose', () => watch.stop());
  await checkoutRoutes(app, deps, watch);
  await paymentLinkRoutes(app, deps);
  await receiptRoutes(app, deps);
  if (deps.db.dialect === 'postgres') {
    const stopListening = deps.state.statusBus.listen(config.databaseUrl, deps.logger, () => watch.refreshAll());
    app.addHook('onClose', stopListening);
  }
}

/** The console (CONSOLE_ENABLED) and /signup, the address people are told. */
export async function mountConsole(app: FastifyInstance, deps: Deps): Promise<void> {
  const { config } = deps;
  // Account mails go through their own SMTP pool: an operator's invitation at once, sign-up and reset
  // mails after the answer (account-mail-queue.ts), so no answer waits for the relay.
  const accountSender = config.smtpUrl && config.mailFrom ? createSmtpSender(config.smtpUrl, config.mailFrom) : null;
  const accountQueue = accountSender ? new AccountMailQueue(accountSender, deps.logger) : null;
  if (accountQueue) app.addHook('onClose', () => accountQueue.close());
  await consoleRoutes(app, deps, accountSender, accountQueue);
  // The address people are told; the form lives in the console, where its cookies are.
  app.get('/signup', { schema: { hide: true } }, (request, reply) => {
    if (config.signup !== 'open')
      return sendError(reply, new AppError('not_found', `no route GET ${request.url.split('?')[0]}`));
    return reply.redirect('/dashboard/signup', 303);
  });
}
