import { paymentSourcesInOrder, paymentSourcesInScope } from '../../storage/queries/sources.js';
import type { PaymentSourcesTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

/** An enabled source whose kind reports live payments: one that can mark a live transaction paid. */
function marksLivePaid(deps: Deps, row: PaymentSourcesTable): boolean {
  return row.enabled === 1 && deps.sources.present(row).mode === 'live';
}

/**
 * Whether merchant M has an enabled payment source of mode live: without one nothing learns a real
 * payment, so a live transaction of its waits until it expires. The point of sale decides its mode by it
 * (`pos/sale-mode.ts`), and the keys, transaction and POS pages warn by it.
 */
export async function hasEnabledLiveSource(deps: Deps, merchantId: string): Promise<boolean> {
  return (await paymentSourcesInOrder(deps.db, merchantId)).some((row) => marksLivePaid(deps, row));
}

/** Of these merchants, those with no enabled live payment source (one read for all of them). */
export async function merchantsWithoutLiveSource(deps: Deps, merchantIds: readonly string[]): Promise<Set<string>> {
  if (merchantIds.length === 0) return new Set();
  const covered = new Set(
    (await paymentSourcesInScope(deps.db, merchantIds))
      .filter((row) => marksLivePaid(deps, row))
      .map((row) => row.merchant_id),
  );
  return new Set(merchantIds.filter((id) => !covered.has(id)));
}
