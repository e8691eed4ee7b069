// @qris-gateway/client: a typed client of qris-gateway's API, and the check of its webhooks.
export {
  QrisGatewayClient,
  type CallOptions,
  type ClientOptions,
  type CreateQrisInput,
  type ListInput,
  type RefundInput,
} from './client.js';
export { QrisGatewayError, type ClientErrorCode } from './errors.js';
export type { WaitOptions } from './wait-for-payment.js';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type WebhookHeaders } from './webhook.js';
export type * from './api-types.js';

import type { Transaction } from './api-types.js';
export type TransactionStatus = Transaction['status'];
