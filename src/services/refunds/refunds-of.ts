import { refundsOfTransaction, refundsOfTransactions } from '../../storage/queries/refunds.js';
import type { RefundsTable, TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

// Reads of a transaction are the hot path and nearly none has a refund: its refund_count says whether
// there is anything to read, so a transaction without refunds costs no second query.

/** A transaction's refunds, oldest first; none read when it never had one. */
export async function refundsOf(deps: Deps, tx: TransactionsTable): Promise<RefundsTable[]> {
  if (!tx.refund_count) return [];
  return refundsOfTransaction(deps.db, tx.id);
}

/** The refunds of a page of transactions, by transaction id; one query, and only if one of them has any. */
export async function refundsOfMany(
  deps: Deps,
  txs: readonly TransactionsTable[],
): Promise<Map<string, RefundsTable[]>> {
  const byTransaction = new Map<string, RefundsTable[]>();
  const ids = txs.filter((t) => t.refund_count).map((t) => t.id);
  if (ids.length === 0) return byTransaction;
  for (const row of await refundsOfTransactions(deps.db, ids)) {
    const list = byTransaction.get(row.transaction_id);
    if (list) list.push(row);
    else byTransaction.set(row.transaction_id, [row]);
  }
  return byTransaction;
}
