import { AppError } from '../../domain/errors.js';
import { effectiveStatus } from '../../domain/transaction.js';
import { readCheckoutRow } from '../../storage/queries/checkout.js';
import type { TransactionStatus } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { isoTime, isoTimeOrNull } from '../../domain/iso-time.js';

/** What a payer may see of a transaction: enough to pay it, nothing about the merchant's customer. */
export interface CheckoutView {
  trxid: string;
  status: TransactionStatus;
  mode: 'test' | 'live';
  merchant_name: string;
  merchant_city: string;
  amount: number;
  unique_code: number;
  total_amount: number;
  expires_at: string;
  paid_at: string | null;
  paid_late: boolean;
}

// Read on every page load: one prepared join of the transaction and its merchant (storage/queries/checkout.ts).
export async function getCheckout(deps: Deps, trxid: string): Promise<CheckoutView> {
  const row = await readCheckoutRow(deps.db, trxid);
  if (!row) throw new AppError('transaction_not_found', `no transaction ${trxid}`, { param: 'trxid' });
  return {
    trxid: row.id,
    status: effectiveStatus(row, deps.now()),
    mode: row.mode,
    merchant_name: row.merchant_name,
    merchant_city: row.merchant_city,
    amount: row.amount,
    unique_code: row.unique_code,
    total_amount: row.total_amount,
    expires_at: isoTime(row.expires_at),
    paid_at: isoTimeOrNull(row.paid_at),
    paid_late: row.paid_late === 1,
  };
}
