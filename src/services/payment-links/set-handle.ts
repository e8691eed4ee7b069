import { AppError } from '../../domain/errors.js';
import { parseHandle } from '../../domain/payment-link.js';
import {
  merchantByLinkHandle,
  merchantLinkInScope,
  setLinkHandleInScope,
  type MerchantLinkRow,
} from '../../storage/queries/payment-links.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';

const taken = (handle: string) => new AppError('handle_taken', `the handle ${handle} is taken`, { param: 'handle' });

/**
 * Gives a merchant the viewer may see a payment-link handle (typed as the person likes; stored
 * lower-case), or takes it away with null. Audited. Another merchant's handle is handle_taken; a
 * merchant outside the viewer's scope is merchant_not_found, exactly as an unknown one.
 */
export async function setPaymentLinkHandle(
  deps: Deps,
  viewer: Viewer,
  merchantId: string,
  raw: string | null,
): Promise<MerchantLinkRow> {
  const handle = raw === null ? null : parseHandle(raw);
  const scope = merchantScope(viewer);
  const now = deps.now();
  try {
    return await deps.db.runInTransaction(async (trx) => {
      const merchant = await merchantLinkInScope(trx, scope, merchantId);
      if (!merchant) throw new AppError('merchant_not_found', `no merchant ${merchantId}`, { param: 'merchant' });
      if (merchant.payment_link_handle === handle) return merchant;
      if (handle !== null) {
        const holder = await merchantByLinkHandle(trx, handle);
        if (holder && holder.id !== merchantId) throw taken(handle);
      }
      await setLinkHandleInScope(trx, scope, merchantId, handle);
      await writeAudit(trx, {
        actor: viewer.actor,
        action: handle === null ? 'merchant.payment_link_removed' : 'merchant.payment_link_set',
        subjectType: 'merchant',
        subjectId: merchantId,
        details: { from: merchant.payment_link_handle, to: handle },
        now,
      });
      return { ...merchant, payment_link_handle: handle };
    });
  } catch (err) {
    // Two claims of one handle at once (PostgreSQL: separate transactions): the unique index refuses the
    // second, which is then told plainly that the handle is taken.
    if (!(err instanceof AppError) && handle !== null) {
      const holder = await merchantByLinkHandle(deps.db, handle);
      if (holder && holder.id !== merchantId) throw taken(handle);
    }
    throw err;
  }
}
