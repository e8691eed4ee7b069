import type { SourceKind } from '../kind.js';
import { receivePhonePost } from './receive.js';
import { inboundEventsPath } from '../common.js';
import { addPhoneSource, rotatePhoneSource } from './setup.js';
import { simulatedApps, simulatedPhonePost } from './simulate.js';

/**
 * A phone: the merchant's phone forwards the payment notifications of its merchant apps (GoPay Merchant,
 * DANA, Nobu...) with a forwarder app, and readers (readers/) turn their text into payments.
 */
export const phoneKind: SourceKind<'phone'> = {
  type: 'phone',
  label: { en: 'Phone notifications', id: 'Notifikasi ponsel' },
  cliName: 'phone notifications',
  polled: false,
  inbound: true,
  notifications: true,
  details: (row) => ({ url: inboundEventsPath(row.id) }),
  receive: receivePhonePost,
  rotate: async (deps, row, actor) => ({ ...(await rotatePhoneSource(deps, row, actor)) }),
  simulate: { apps: simulatedApps(), post: simulatedPhonePost },
  console: {
    operatorOnly: false,
    fields: [],
    async add(deps, input) {
      const created = await addPhoneSource(deps, {
        merchantId: input.merchantId,
        mode: input.mode,
        actor: input.actor,
        name: input.name,
      });
      return { shows: 'phone', ...created };
    },
  },
  cli: {
    options: [],
    // Exactly id, url, token and secret: scripts read this object.
    add: async (deps, input) => ({
      ...(await addPhoneSource(deps, {
        merchantId: input.merchant,
        mode: input.mode,
        actor: input.actor,
        name: input.name,
      })),
    }),
    describe: (created) =>
      [
        `created phone source ${String(created.id)}`,
        `  POST ${String(created.url)} (under your public base URL)`,
        `  token:  ${String(created.token)}`,
        `  secret: ${String(created.secret)}`,
        '  (shown only now. Prefer signing: X-Signature: <hex HMAC-SHA256 of the body with the secret>;',
        '   apps that can only send fixed values send Authorization: Bearer <token>. Anyone who learns the token can report payments.)',
      ].join('\n'),
  },
};
