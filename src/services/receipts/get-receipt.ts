import { AppError } from '../../domain/errors.js';
import { isReceiptToken } from '../../domain/ids.js';
import { type RefundStanding, refundStanding } from '../../domain/refund.js';
import { receiptByToken, type ReceiptRow } from '../../storage/queries/receipts.js';
import type { Deps } from '../deps.js';

/** A receipt: what it shows of the transaction, and what of its payment has been given back since. */
export interface Receipt extends ReceiptRow {
  refunds: RefundStanding;
}

/**
 * A receipt by its public link's token. An unknown token, a malformed one and a transaction that is not
 * paid are the same not_found, so a link tells nothing more than that it is not a receipt. A refunded
 * transaction keeps its receipt, which then says what was given back and what remains paid (issue 35):
 * it is no longer proof of a payment the payer has had back.
 */
export async function getReceipt(deps: Deps, token: string): Promise<Receipt> {
  const found = isReceiptToken(token) ? await receiptByToken(deps.db, token) : undefined;
  if (found?.transaction.status !== 'paid' || found.transaction.paid_at === null)
    throw new AppError('not_found', 'no such receipt');
  return { ...found, refunds: refundStanding(found.transaction) };
}
