import { randomBytes } from 'node:crypto';

/**
 * `whsec_` and the standard base64 of 32 random bytes: a Standard Webhooks secret, whose decoded bytes
 * key webhook-signature, while X-Signature is keyed by the whole text. Endpoints made before kept their
 * `whsec_` + 32 base62 characters, which is valid base64 too (24 bytes), so they need no migration.
 */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
