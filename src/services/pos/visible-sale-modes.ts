import type { SaleMode } from '../../domain/pos-sale-mode.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';
import { merchantNames, merchantsInScope } from '../../storage/queries/merchants.js';
import type { Deps } from '../deps.js';
import { saleModesOf } from './sale-mode.js';

/** The merchants the viewer may sell for, by name as the console lists them, each with its sale mode: three reads however many. */
export async function visibleSaleModes(
  deps: Deps,
  viewer: Viewer,
): Promise<Array<{ merchant: { id: string; name: string }; mode: SaleMode }>> {
  const scope = merchantScope(viewer);
  const [names, rows] = await Promise.all([merchantNames(deps.db, scope), merchantsInScope(deps.db, scope)]);
  const modes = await saleModesOf(deps, rows);
  return names.flatMap((merchant) => {
    const mode = modes.get(merchant.id);
    return mode ? [{ merchant, mode }] : [];
  });
}
