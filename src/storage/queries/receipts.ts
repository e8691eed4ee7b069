// Receipt links (migration 016): one random token per paid transaction, the key of its public receipt.
import type { Db, Executor } from '../executor.js';
import type { MerchantsTable, PaymentsTable, TransactionsTable } from '../schema.js';

/** Stores the transaction's token unless it has one; returns the one it has either way, and whether it is new. */
export async function insertReceiptTokenIfAbsent(
  db: Executor,
  transactionId: string,
  token: string,
  now: number,
): Promise<{ token: string; created: boolean }> {
  const inserted = await db
    .insertInto('receipt_links')
    .values({ transaction_id: transactionId, token, created_at: now })
    .onConflict((oc) => oc.column('transaction_id').doNothing())
    .executeTakeFirst();
  const row = await db
    .selectFrom('receipt_links')
    .select('token')
    .where('transaction_id', '=', transactionId)
    .executeTakeFirstOrThrow();
  return { token: row.token, created: Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0 };
}

/** The token of the transaction's receipt link, if one was made. */
export async function receiptTokenOf(db: Db, transactionId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('receipt_links')
    .select('token')
    .where('transaction_id', '=', transactionId)
    .executeTakeFirst();
  return row?.token;
}

export interface ReceiptRow {
  transaction: TransactionsTable;
  merchant: Pick<MerchantsTable, 'name' | 'merchant_name' | 'merchant_city' | 'nmid'>;
  payment: Pick<PaymentsTable, 'issuer' | 'reference' | 'payer_name'> | null;
}

/** What a receipt shows, found by its link's token (whatever the transaction's status). */
export async function receiptByToken(db: Db, token: string): Promise<ReceiptRow | undefined> {
  const link = await db
    .selectFrom('receipt_links')
    .select('transaction_id')
    .where('token', '=', token)
    .executeTakeFirst();
  if (!link) return undefined;
  const transaction = await db
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', link.transaction_id)
    .executeTakeFirst();
  if (!transaction) return undefined;
  const merchant = await db
    .selectFrom('merchants')
    .select(['name', 'merchant_name', 'merchant_city', 'nmid'])
    .where('id', '=', transaction.merchant_id)
    .executeTakeFirstOrThrow();
  const payment =
    transaction.payment_id === null
      ? null
      : ((await db
          .selectFrom('payments')
          .select(['issuer', 'reference', 'payer_name'])
          .where('id', '=', transaction.payment_id)
          .executeTakeFirst()) ?? null);
  return { transaction, merchant, payment };
}
