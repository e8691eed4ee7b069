// The package's library entry: what integrators import. Keep it free of the gateway's runtime (no
// database, no Fastify) so that importing it costs a receiver nothing.
export { signWebhookPayload, verifyWebhookSignature } from './webhook-signature.js';
export type { VerifyWebhookSignatureOptions, WebhookPayload } from './webhook-signature.js';
