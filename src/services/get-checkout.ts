import { effectiveStatus } from '../domain/transaction.js';
import type { TransactionStatus } from '../storage/schema.js';
import type { Deps } from './deps.js';
import { getTransactionById } from './get-transaction.js';

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

export async function getCheckout(deps: Deps, trxid: string): Promise<CheckoutView> {
  const tx = await getTransactionById(deps, trxid);
  const merchant = await deps.db
    .selectFrom('merchants')
    .select(['merchant_name', 'merchant_city'])
    .where('id', '=', tx.merchant_id)
    .executeTakeFirstOrThrow();
  return {
    trxid: tx.id,
    status: effectiveStatus(tx, deps.now()),
    mode: tx.mode,
    merchant_name: merchant.merchant_name,
    merchant_city: merchant.merchant_city,
    amount: tx.amount,
    unique_code: tx.unique_code,
    total_amount: tx.total_amount,
    expires_at: new Date(tx.expires_at).toISOString(),
    paid_at: tx.paid_at === null ? null : new Date(tx.paid_at).toISOString(),
    paid_late: tx.paid_late === 1,
  };
}
