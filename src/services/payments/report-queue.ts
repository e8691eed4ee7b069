import type { RecordPaymentResult, ReportedPayment } from './payment-report.js';

/** A payment report waiting for its turn's batch (record-payment.ts). */
export interface WaitingReport {
  report: ReportedPayment;
  /** Which hand-over it came in: the reports of one are never split between batches. */
  handOver: number;
  resolve(result: RecordPaymentResult): void;
  reject(error: unknown): void;
}

/** What the batches of payment reports did, for /metrics and the tests. */
export interface ReportBatchStats {
  /** Reports that had their turn to themselves, recorded alone. */
  alone: number;
  /** Batches of two or more reports committed together. */
  batches: number;
  /** Reports those batches recorded. */
  reports: number;
  /** Batches that failed as a whole (every report then recorded on its own, in order). */
  failed: number;
}

/** The payment reports of the current event-loop turn, and the counters. One per ServiceState. */
export class ReportQueue {
  waiting: WaitingReport[] = [];
  scheduled = false;
  /** Batches being recorded (at most record-payment.ts's batchesAtOnce). */
  recording = 0;
  /** Hand-overs so far, and whether one is open (until the current microtasks have run). */
  handOvers = 0;
  handingOver = false;
  readonly stats: ReportBatchStats = { alone: 0, batches: 0, reports: 0, failed: 0 };
}
