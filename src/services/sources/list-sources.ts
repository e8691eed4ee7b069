import { paymentSourcesInOrder, paymentSourcesInScope } from '../../storage/queries/sources.js';
import type { Deps } from '../deps.js';
import type { SourceView } from './source-view.js';

/** Payment sources as operators see them (one merchant's, or all), oldest first. */
export async function listSources(deps: Deps, merchantId?: string): Promise<SourceView[]> {
  const rows = await paymentSourcesInOrder(deps.db, merchantId);
  return rows.map((row) => deps.sources.present(row));
}

/** The sources of these merchants (all when null), oldest first: a console user's. */
export async function listSourcesInScope(deps: Deps, merchants: readonly string[] | null): Promise<SourceView[]> {
  return (await paymentSourcesInScope(deps.db, merchants)).map((row) => deps.sources.present(row));
}
