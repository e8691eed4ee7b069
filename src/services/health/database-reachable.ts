import { pingDatabase } from '../../storage/queries/health.js';
import type { Deps } from '../deps.js';

/**
 * Whether the database answers a trivial query just now. For open streams whose own traffic (pings) goes
 * on without it, so that what a page shows follows the database, not only the socket. Never throws.
 */
export async function databaseReachable(deps: Deps): Promise<boolean> {
  try {
    await pingDatabase(deps.db);
    return true;
  } catch (err) {
    deps.logger.warn({ err }, 'the database did not answer a check');
    return false;
  }
}
