import { effectiveStatus } from '../../domain/transaction.js';
import type { Viewer } from '../../domain/viewer.js';
import { wibDayStart } from '../../domain/wib.js';
import { readSalesOf } from '../../storage/queries/transactions.js';
import type { TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

/** A counter's busy day is a few hundred sales; the list shows this many, the total counts them all. */
const SHOWN = 200;
const COUNTED = 5000;

export interface TodaysSales {
  /** Newest first, each with the status a reader sees now (a pending one past its expiry is expired). */
  sales: Array<{ transaction: TransactionsTable; status: TransactionsTable['status'] }>;
  /** The sum of the paid totals (what reached the merchant's account), and how many were paid. */
  paidTotal: number;
  paidCount: number;
}

/** The viewer's own sales of today (WIB), with the day's paid total. */
export async function todaysSales(deps: Deps, viewer: Viewer): Promise<TodaysSales> {
  const now = deps.now();
  const rows = await readSalesOf(deps.db, viewer.userId, wibDayStart(now), COUNTED);
  const paid = rows.filter((r) => r.status === 'paid');
  return {
    sales: rows.slice(0, SHOWN).map((transaction) => ({ transaction, status: effectiveStatus(transaction, now) })),
    paidTotal: paid.reduce((sum, r) => sum + r.total_amount, 0),
    paidCount: paid.length,
  };
}
