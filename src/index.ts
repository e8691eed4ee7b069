// The package's library entry: what integrators import. Keep it free of the gateway's runtime (no
// database, no Fastify) so that importing it costs a receiver nothing.
export {
  signStandardWebhook,
  signWebhookPayload,
  verifyStandardWebhook,
  verifyWebhookSignature,
} from './webhook-signature.js';
export type {
  StandardWebhookHeaders,
  VerifyStandardWebhookOptions,
  VerifyWebhookSignatureOptions,
  WebhookPayload,
} from './webhook-signature.js';
