import { AppError } from '../../domain/errors.js';
import { startSnapPoller } from './poller.js';
import type { SourceKind } from '../kind.js';
import { maskUrl } from '../mask-url.js';
import { snapNotifyRoutes } from './notify-route.js';
import { snapKindIssuer } from './issuer.js';
import { addSnapSource } from './setup.js';

/** A SNAP BI acquirer: it issues the codes, notifies payments and is queried for the ones it did not. */
export const snapKind: SourceKind<'snap'> = {
  type: 'snap',
  label: { en: 'SNAP BI', id: 'SNAP BI' },
  cliName: 'SNAP BI',
  polled: false,
  inbound: false,
  // Its configuration is mostly credentials: only the base URL is shown.
  details: (_row, config) => ({ url: typeof config.baseUrl === 'string' ? maskUrl(config.baseUrl) : null }),
  routes: snapNotifyRoutes,
  issuer: snapKindIssuer,
  worker: (deps) => startSnapPoller(deps, deps.config.snapPollIntervalMs),
  cli: {
    options: [['--config <file>', 'snap: the SNAP BI configuration JSON']],
    async add(deps, input) {
      const { config } = input.options;
      if (!config)
        throw new AppError('invalid_parameter', '--config FILE is required for a SNAP source', { param: 'config' });
      // Printed as the SNAP setup returns it (at least the id): its shape is that module's to define.
      return {
        ...(await addSnapSource(deps, input.merchant, input.readJson(config, 'config'), input.actor, input.name)),
      };
    },
    describe: (created) => `created snap source ${String(created.id)}`,
  },
};
