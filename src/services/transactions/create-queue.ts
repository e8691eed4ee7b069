import type { ParsedQris } from '../../domain/qris/index.js';
import type { TransactionsTable } from '../../domain/records.js';
import type { CreateTransactionInput } from './create-input.js';

/** A plain create waiting for its turn's batch (create-batch.ts). */
export interface BatchedCreate {
  input: CreateTransactionInput;
  code: ParsedQris;
  low: number;
  high: number;
}

export interface WaitingCreate extends BatchedCreate {
  resolve(row: TransactionsTable): void;
  reject(error: unknown): void;
}

/** What the batches did, for /metrics. */
export interface CreateBatchStats {
  /** Batches committed. */
  batches: number;
  /** Creates whose row a committed batch holds. */
  made: number;
  /** Creates a committed batch handed to the one-by-one path (no free candidate, or a lost total). */
  handedOn: number;
  /** Creates a committed batch refused itself: every code of their amount held, none lapsed. */
  refused: number;
  /** Batches that failed as a whole (every create then made on its own). */
  failed: number;
}

/** The creates of the current turn and the counters. One per ServiceState (services/state.ts). */
export class CreateQueue {
  waiting: WaitingCreate[] = [];
  scheduled = false;
  /** Batches being made (at most create-batch.ts's CREATE_BATCHES_AT_ONCE). */
  running = 0;
  readonly stats: CreateBatchStats = { batches: 0, made: 0, handedOn: 0, refused: 0, failed: 0 };
}
