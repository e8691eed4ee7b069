import { merchantsAwaitingLive } from '../../storage/queries/merchants.js';
import type { MerchantsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import type { Viewer } from '../../domain/viewer.js';

/** The queue an operator works through: self-service merchants whose live keys wait (LIVE_KEYS=approval). */
export async function liveApprovalQueue(deps: Deps, viewer: Viewer): Promise<MerchantsTable[]> {
  if (viewer.role !== 'operator') return [];
  return merchantsAwaitingLive(deps.db);
}
