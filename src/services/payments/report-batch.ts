import type { Tx } from '../../storage/executor.js';
import {
  insertPaymentsUnlessDuplicate,
  markTransactionsPaid,
  type PaidUpdate,
  type PaidValues,
} from '../../storage/queries/payments.js';
import type { PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import { OutboxWrites } from '../outbox/outbox-writes.js';

const amountKey = (merchantId: string, mode: string, amount: number): string =>
  `${merchantId}\u0000${mode}\u0000${amount}`;
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The key a payment is deduplicated on: (source, source_payment_id). */
export const paymentKey = (row: Pick<PaymentsTable, 'source' | 'source_payment_id'>): string =>
  `${row.source}\u0000${row.source_payment_id}`;

/**
 * Another unit of work changed what the batch decided on (PostgreSQL): it stored one of the batch's
 * payments between the batch's read of the stored keys and its insert (two reports of one payment at the
 * same moment), or changed a transaction the batch pays since it was read (a cancel, another payment). The
 * batch is rolled back and its reports recorded again, seeing that change.
 */
export class ReportsRaced extends Error {
  constructor() {
    super('a payment of the batch was stored by another unit of work meanwhile');
  }
}

/**
 * What the reports recorded together in one unit of work share (record-payment.ts, recordPaymentsIn): the
 * moment they were received; which of their payments were stored before (one read); the candidates of
 * their amounts (one read per merchant and mode); their payment rows, kept here as the matcher decides them
 * and inserted as decided in one statement (`flush`, before anything reads payments back, and at the end);
 * and their outbox rows (outbox-writes.ts). Reports are still matched one after another, in the order they
 * arrived: each sees the transactions as the reports before it left them (`saw`), as if it read them again.
 */
export class ReportBatch {
  readonly writes = new OutboxWrites();
  /** Keys stored before the batch, and those of the batch's own payments. */
  readonly #taken: Set<string>;
  /** Payment rows decided but not yet inserted, by id, in the order they were taken. */
  readonly #pending = new Map<string, PaymentsTable>();
  /** Transactions the batch pays, not yet updated (payLater). */
  readonly #paid: PaidUpdate[] = [];
  readonly #candidates = new Map<string, TransactionsTable[]>();
  readonly #latest = new Map<string, TransactionsTable>();
  readonly #disabled = new Map<string, number | null | undefined>();

  /**
   * @param payLater whether transactions are marked paid together at `flush` (a batch of several reports)
   * rather than each at once, where a lost race is handled in place (one report: record-payment.ts).
   */
  constructor(
    readonly now: number,
    storedKeys: Set<string>,
    readonly payLater: boolean,
  ) {
    this.#taken = storedKeys;
  }

  /**
   * Marks a transaction paid at `flush`, with the others of the batch; the row as that update makes it,
   * exactly as markTransactionPaid would return it (paid late when it was no longer pending when read).
   * The update holds only if the row still has the status and amount paid it was read with; otherwise
   * flush throws ReportsRaced and the batch is recorded again report by report.
   */
  markPaid(candidate: TransactionsTable, paid: PaidValues): TransactionsTable {
    const paidLate: 0 | 1 = paid.late || candidate.status !== 'pending' ? 1 : 0;
    this.#paid.push({
      id: candidate.id,
      expectedStatus: candidate.status,
      amountPaidBefore: paid.amountPaidBefore,
      paymentId: paid.paymentId,
      paidAt: paid.paidAt,
      amountPaid: paid.amountPaid,
      underpaid: paid.underpaid,
      overpaid: paid.overpaid,
      paidLate,
      now: paid.now,
    });
    return {
      ...candidate,
      status: 'paid',
      paid_at: paid.paidAt,
      amount_paid: paid.amountPaid,
      underpaid: paid.underpaid,
      overpaid: paid.overpaid,
      paid_late: paidLate,
      payment_id: paid.paymentId,
      updated_at: paid.now,
    };
  }

  /**
   * Takes a report's payment for the batch: false when its key is stored already (or taken by an earlier
   * report of the batch), and the report is a repeat.
   */
  take(row: PaymentsTable): boolean {
    const key = paymentKey(row);
    if (this.#taken.has(key)) return false;
    this.#taken.add(key);
    this.#pending.set(row.id, row);
    return true;
  }

  /** Whether the payment is the batch's and not yet inserted: its changes are made to the row kept here. */
  isPending(paymentId: string): boolean {
    return this.#pending.has(paymentId);
  }

  /**
   * Inserts the payments decided so far, as decided, in key order (two batches at once on PostgreSQL then
   * take the unique key's locks in one order and cannot deadlock on them). ReportsRaced when one was
   * stored meanwhile by another unit of work.
   */
  async flush(trx: Tx): Promise<void> {
    if (this.#pending.size > 0) {
      const rows = [...this.#pending.values()].sort((a, b) => compareText(paymentKey(a), paymentKey(b)));
      this.#pending.clear();
      const stored = await insertPaymentsUnlessDuplicate(trx, rows);
      if (stored.size !== rows.length) throw new ReportsRaced();
    }
    if (this.#paid.length > 0) {
      // In id order, for the same reason as the payments' keys.
      const updates = this.#paid.splice(0).sort((a, b) => compareText(a.id, b.id));
      const marked = await markTransactionsPaid(trx, updates);
      if (marked.size !== updates.length) throw new ReportsRaced();
    }
  }

  /** Keeps the candidates read for an amount (paymentCandidatesByAmounts). */
  setCandidates(merchantId: string, mode: string, amount: number, rows: TransactionsTable[]): void {
    this.#candidates.set(amountKey(merchantId, mode, amount), rows);
  }

  /**
   * The transactions holding the amount as their unique total when the batch began (an open one, or one
   * expired within the reservation grace; a reservation past its time names no one), as the batch's
   * earlier reports left them.
   */
  candidatesOf(merchantId: string, mode: string, amount: number): TransactionsTable[] {
    const rows = this.#candidates.get(amountKey(merchantId, mode, amount));
    if (rows === undefined) throw new Error(`report batch: the candidates of ${amount} were not read`);
    return rows.map((row) => this.#latest.get(row.id) ?? row);
  }

  /** A transaction as a report of the batch changed it (or read it again). */
  saw(row: TransactionsTable): void {
    this.#latest.set(row.id, row);
  }

  /** A merchant's disabled_at, read once per batch. */
  async disabledAt(
    merchantId: string,
    read: () => Promise<number | null | undefined>,
  ): Promise<number | null | undefined> {
    if (!this.#disabled.has(merchantId)) this.#disabled.set(merchantId, await read());
    return this.#disabled.get(merchantId);
  }
}
