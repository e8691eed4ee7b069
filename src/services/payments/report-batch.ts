import type { TransactionsTable } from '../../storage/schema.js';
import { OutboxWrites } from '../outbox/outbox-writes.js';

const amountKey = (merchantId: string, mode: string, amount: number): string =>
  `${merchantId}\u0000${mode}\u0000${amount}`;

/**
 * What the reports recorded together in one unit of work share (record-payment.ts, recordPaymentsIn): the
 * moment they were received, their rows stored in one statement, the candidates of their amounts read in
 * one statement per merchant and mode, and their outbox rows (outbox-writes.ts). Reports are still
 * matched one after another, in the order they arrived: each sees the transactions as the reports before
 * it left them (`saw`), exactly as if it had read them again.
 */
export class ReportBatch {
  readonly writes = new OutboxWrites();
  /** Ids of the payment rows the batch's insert stored (the others were reported before). */
  readonly stored = new Set<string>();
  readonly #candidates = new Map<string, TransactionsTable[]>();
  readonly #latest = new Map<string, TransactionsTable>();
  readonly #disabled = new Map<string, number | null | undefined>();

  constructor(readonly now: number) {}

  /** Keeps the candidates read for an amount (paymentCandidatesByAmounts). */
  setCandidates(merchantId: string, mode: string, amount: number, rows: TransactionsTable[]): void {
    this.#candidates.set(amountKey(merchantId, mode, amount), rows);
  }

  /** The candidates of an amount as the batch's earlier reports left them; undefined when not read. */
  candidatesOf(merchantId: string, mode: string, amount: number): TransactionsTable[] | undefined {
    return this.#candidates.get(amountKey(merchantId, mode, amount))?.map((row) => this.#latest.get(row.id) ?? row);
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
