import type { Kysely } from 'kysely';
import type { Db } from '../executor.js';
import { prepareQuery } from '../engine/prepared.js';
import type { DB } from '../schema.js';

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

/** What the checkout page shows of a transaction, with its merchant's name and city; undefined if none. */
export function readCheckoutRow(db: Db, id: string) {
  return checkoutRow.executeTakeFirst(db, { id });
}
