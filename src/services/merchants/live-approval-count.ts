import type { Viewer } from '../../domain/viewer.js';
import { countMerchantsAwaitingLive } from '../../storage/queries/merchants.js';
import type { Deps } from '../deps.js';

/** How many merchants wait for an operator (the navigation's count); 0 for anyone else. */
export async function liveApprovalCount(deps: Deps, viewer: Viewer): Promise<number> {
  if (viewer.role !== 'operator') return 0;
  return countMerchantsAwaitingLive(deps.db);
}
