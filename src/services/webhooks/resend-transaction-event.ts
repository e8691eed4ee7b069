import { AppError } from '../../domain/errors.js';
import { isEventOfTransaction } from '../../storage/queries/outbox.js';
import type { Deps } from '../deps.js';
import { getVisibleTransaction } from '../transactions/get-visible-transaction.js';
import type { Viewer } from '../../domain/viewer.js';
import { resendEvent, type ResendResult } from './resend-event.js';

/**
 * The console's resend from a transaction's page: one of that transaction's events, to every endpoint
 * it was delivered to, audited as the viewer. An event of another transaction (or another merchant's)
 * is not found, exactly as an unknown one.
 */
export async function resendTransactionEvent(
  deps: Deps,
  viewer: Viewer,
  input: { trxid: string; eventId: string },
): Promise<ResendResult> {
  const tx = await getVisibleTransaction(deps, viewer, input.trxid);
  if (!/^evt_[0-9A-Za-z]{1,64}$/.test(input.eventId) || !(await isEventOfTransaction(deps.db, input.eventId, tx.id))) {
    throw new AppError('not_found', 'no such event', { param: 'event' });
  }
  return resendEvent(deps, { eventId: input.eventId, actor: viewer.actor });
}
