import { dueEmailIds } from '../../storage/queries/emails.js';
import type { Deps } from '../deps.js';

/** Ids of rows due now, oldest first; claiming them is a separate step that may lose to another mailer. */
export async function findDueEmailIds(deps: Deps, limit: number): Promise<string[]> {
  return dueEmailIds(deps.db, deps.now(), limit);
}
