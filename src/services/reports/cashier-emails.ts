import { emailsOfUsers } from '../../storage/queries/reports.js';
import type { Deps } from '../deps.js';

/** The addresses of the cashiers a report's by_cashier names (the console shows them instead of ids). */
export function cashierEmails(deps: Deps, userIds: readonly string[]): Promise<Map<string, string>> {
  return emailsOfUsers(deps.db, userIds);
}
