import { AppError } from '../../domain/errors.js';
import type { Deps } from '../deps.js';
import { getWebhookEndpoint } from './get-webhook-endpoint.js';

/** The endpoint a resend goes to: any but a disabled one (`invalid_parameter`). */
export async function usableEndpoint(deps: Deps, endpointId: string) {
  const endpoint = await getWebhookEndpoint(deps, endpointId);
  if (endpoint.status === 'disabled') {
    throw new AppError('invalid_parameter', `webhook endpoint ${endpointId} is disabled`, { param: 'endpoint' });
  }
  return endpoint;
}
