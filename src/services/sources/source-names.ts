import { paymentSourceNames } from '../../storage/queries/sources.js';
import type { Deps } from '../deps.js';

/** The names of these sources, by id; a source without a name is absent (show its id). One read. */
export async function sourceNamesOf(deps: Deps, ids: Iterable<string>): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  return new Map((await paymentSourceNames(deps.db, unique)).map((r) => [r.id, r.name]));
}
