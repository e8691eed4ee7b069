import { paymentSourcesInOrder } from '../../storage/queries/sources.js';
import type { Deps } from '../deps.js';
import type { SourceView } from './source-view.js';

/** Payment sources as operators see them (one merchant's, or all), oldest first. */
export async function listSources(deps: Deps, merchantId?: string): Promise<SourceView[]> {
  const rows = await paymentSourcesInOrder(deps.db, merchantId);
  return rows.map((row) => deps.sources.present(row));
}
