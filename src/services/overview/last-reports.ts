import { lastReportOfSources } from '../../storage/queries/overview.js';
import type { Deps } from '../deps.js';

/** When each payment source last reported a payment (its health beside its own poll state). */
export function lastReports(deps: Deps, sourceIds: readonly string[]): Promise<Map<string, number>> {
  return lastReportOfSources(deps.db, sourceIds);
}
