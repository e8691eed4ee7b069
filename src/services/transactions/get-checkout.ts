import type { Kysely } from 'kysely';
import { AppError } from '../../domain/errors.js';
import { effectiveStatus } from '../../domain/transaction.js';
import { prepareQuery } from '../../storage/prepared.js';
import type { DB, TransactionStatus } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { getTransactionById } from './get-transaction.js';
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

// Read on every page load: one prepared join rather than the transaction and then its merchant.
const checkoutRow = prepareQuery((db: Kysely<DB>, p: { id: string }) =>
  db
    .selectFrom('transactions as t')
    .innerJoin('merchants as m', 'm.id', 't.merchant_id')
    .select([
      't.id',
      't.status',
      't.mode',
      't.amount',
      't.unique_code',
      't.total_amount',
      't.expires_at',
      't.paid_at',
      't.paid_late',
      'm.merchant_name',
      'm.merchant_city',
    ])
    .where('t.id', '=', p.id),
);

export async function getCheckout(deps: Deps, trxid: string): Promise<CheckoutView> {
  const row = await checkoutRow.executeTakeFirst(deps.db, { id: trxid });
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

/** What a page without a live stream polls: the status alone, through the batched read by id. */
export async function getCheckoutStatus(deps: Deps, trxid: string): Promise<{ status: TransactionStatus; paid_late: boolean }> {
  const tx = await getTransactionById(deps, trxid);
  return { status: effectiveStatus(tx, deps.now()), paid_late: tx.paid_late === 1 };
}
