import { loadTransactionsById } from '../../storage/queries/transactions.js';
import type { TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

/**
 * Many transactions by id, for the status watcher: asked for in one turn, they share the IN-list
 * statements of the batched read (one per 64 ids). Ids with no transaction are absent from the map.
 */
export function transactionsById(deps: Deps, ids: readonly string[]): Promise<Map<string, TransactionsTable>> {
  return loadTransactionsById(deps.db, ids);
}
