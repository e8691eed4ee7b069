import { paymentSourcesInScope } from '../../storage/queries/sources.js';
import type { Deps } from '../deps.js';
import type { SourceView } from './source-view.js';

/** The sources of these merchants (all when null), oldest first: a console user's. */
export async function listVisibleSources(deps: Deps, merchants: readonly string[] | null): Promise<SourceView[]> {
  return (await paymentSourcesInScope(deps.db, merchants)).map((row) => deps.sources.present(row));
}
