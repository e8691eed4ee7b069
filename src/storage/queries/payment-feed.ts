// A merchant's paid transactions in the order the gateway learned of them: the outbox's
// `transaction.paid` events (one per transaction that becomes paid, whoever paid it), for the soundbox
// (issue 27, section 2). They use the outbox's index on (merchant_id, created_at).
import type { Db } from '../executor.js';
import type { Mode } from '../schema.js';

export interface PaidEventRow {
  /** The outbox event's id and time: the feed's order. */
  id: string;
  created_at: number;
  transaction_id: string;
  mode: Mode;
  total_amount: number;
  ref: string | null;
  paid_at: number;
  paid_late: number;
  issuer: string | null;
}

/** The merchant's paid events created after `after`, oldest first, at most `limit`. */
export async function paidEventsAfter(
  db: Db,
  merchantId: string,
  after: number,
  limit: number,
): Promise<PaidEventRow[]> {
  const rows = await db
    .selectFrom('events as e')
    .innerJoin('transactions as t', 't.id', 'e.transaction_id')
    .leftJoin('payments as p', 'p.id', 't.payment_id')
    .select([
      'e.id',
      'e.created_at',
      't.id as transaction_id',
      't.mode',
      't.total_amount',
      't.ref',
      't.paid_at',
      't.paid_late',
      'p.issuer',
    ])
    .where('e.merchant_id', '=', merchantId)
    .where('e.created_at', '>', after)
    .where('e.type', '=', 'transaction.paid')
    .orderBy('e.created_at')
    .orderBy('e.id')
    .limit(limit)
    .execute();
  // A paid transaction always has its paid time; the join's type cannot know it.
  return rows.map((r) => ({ ...r, paid_at: r.paid_at ?? r.created_at, issuer: r.issuer ?? null }));
}
