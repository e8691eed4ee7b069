import { createHash } from 'node:crypto';
import { AppError } from '../../domain/errors.js';
import { parseAmount } from '../../domain/money.js';
import type { Viewer } from '../../domain/viewer.js';
import type { TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { getVisibleMerchant } from '../merchants/get-visible-merchant.js';
import { createTransaction } from '../transactions/create-transaction.js';
import { saleModesOf } from './sale-mode.js';

export interface SaleForm {
  merchantId: string;
  /** As typed on the keypad: plain digits. */
  amount: string;
  note: string;
  /** The one-time key the keypad's form carries: one press, however often sent, is one sale. */
  key: string;
}

/** The longest note kept as a sale's description: an order label ("Meja 4, 2 es teh"), not a letter. */
export const NOTE_MAX = 100;
const SALE_KEY = /^[A-Za-z0-9_-]{16,64}$/;
/** The point of sale's Idempotency-Keys, apart from any an API client might send. */
const SALE_NAMESPACE = 'pos:';

/**
 * A point-of-sale charge: a transaction made through the same create as the API's (the merchant's quota,
 * the unique code, the amount limits), recorded as this cashier's sale. Idempotent per form: the form's
 * key is the create's Idempotency-Key, so a double tap or a resent form answers with the first sale, and
 * the same key with another amount or note is refused (idempotency_key_reused), never a second sale.
 * Live only once a live sale can be paid (`saleModesOf`): never for the demo merchant, and not before the
 * merchant's live payments are open and it has an enabled live payment source; the sandbox until then.
 */
export async function chargeSale(
  deps: Deps,
  viewer: Viewer,
  form: SaleForm,
): Promise<{ transaction: TransactionsTable; replayed: boolean }> {
  if (!SALE_KEY.test(form.key))
    throw new AppError('invalid_parameter', 'the sale form has no valid key; open the point of sale again', {
      param: 'key',
    });
  const merchant = await getVisibleMerchant(deps, viewer, form.merchantId);
  if (merchant.disabled_at != null)
    throw new AppError('merchant_disabled', 'this merchant is disabled and cannot take payments');
  const amount = parseAmount(form.amount, { min: deps.config.amountMin, max: deps.config.amountMax });
  const note = form.note.trim();
  if (note.length > NOTE_MAX)
    throw new AppError('invalid_parameter', `the note may be at most ${NOTE_MAX} characters`, { param: 'note' });
  if (/[\p{Cc}\p{Cf}]/u.test(note))
    throw new AppError('invalid_parameter', 'the note must not contain control characters', { param: 'note' });
  const { mode } = (await saleModesOf(deps, [merchant])).get(merchant.id)!;
  const requestHash = createHash('sha256')
    .update(JSON.stringify(['pos', viewer.userId, merchant.id, amount, note]))
    .digest('hex');
  const result = await createTransaction(deps, {
    merchantId: merchant.id,
    mode,
    amount,
    email: null,
    ref: null,
    expiresInSeconds: null,
    idempotency: { key: `${SALE_NAMESPACE}${viewer.userId}:${form.key}`, requestHash },
    sale: { userId: viewer.userId, email: viewer.email, description: note === '' ? null : note },
  });
  return { transaction: result.transaction, replayed: result.replayed };
}
