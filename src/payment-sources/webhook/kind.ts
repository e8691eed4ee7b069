import type { SourceKind } from '../kind.js';
import { receiveWebhookPost } from './receive.js';
import { inboundEventsPath } from '../common.js';
import { addWebhookSource } from './setup.js';

/** A signed webhook: the merchant's own tools post each payment, signed with the source's secret. */
export const webhookKind: SourceKind<'webhook'> = {
  type: 'webhook',
  label: { en: 'Signed webhook', id: 'Webhook bertanda tangan' },
  cliName: 'signed webhook',
  polled: false,
  inbound: true,
  details: (row) => ({ url: inboundEventsPath(row.id) }),
  receive: receiveWebhookPost,
  console: {
    operatorOnly: false,
    // Nothing to fill in: the gateway makes its secret and its URL.
    fields: [],
    async add(deps, input) {
      const created = await addWebhookSource(deps, {
        merchantId: input.merchantId,
        mode: input.mode,
        actor: input.actor,
        name: input.name,
      });
      return { shows: 'secret', id: created.id, secret: created.secret, url: created.url };
    },
  },
  cli: {
    options: [],
    // Exactly id, secret and url: scripts read this object.
    add: async (deps, input) => ({
      ...(await addWebhookSource(deps, {
        merchantId: input.merchant,
        mode: input.mode,
        actor: input.actor,
        name: input.name,
      })),
    }),
    describe: (created) =>
      [
        `created webhook source ${String(created.id)}`,
        `  POST ${String(created.url)} (under your public base URL)`,
        `  secret: ${String(created.secret)}`,
        '  (the secret is shown only now; sign with X-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">)',
      ].join('\n'),
  },
};
