// A webhook endpoint that keeps failing is news for its merchant: the shop's server may be down. The
// alert is written once per run of failures, in the unit of work of the attempt that turned the endpoint
// failing (webhook-queue.ts); a success ends the run, and a later run alerts again.
import type { Tx } from '../../storage/executor.js';
import { endpointHealth } from '../../storage/queries/webhook-endpoints.js';
import { fanOut } from '../outbox/fan-out.js';

export async function alertIfEndpointTurnedFailing(
  trx: Tx,
  endpointId: string,
  failingAfter: number,
  now: number,
): Promise<void> {
  const endpoint = await endpointHealth(trx, endpointId);
  // The update that counts failures turns an active endpoint failing exactly when the count reaches
  // `failingAfter`, and a success resets the count: so this count is the turn, and only it.
  if (endpoint === undefined) return;
  if (endpoint.status !== 'failing' || Number(endpoint.consecutive_failures) !== failingAfter) return;
  await fanOut(trx, {
    notice: { kind: 'webhook_failing', endpointId, url: endpoint.url, failures: failingAfter, at: now },
    merchantId: endpoint.merchant_id,
    now,
  });
}
