import type { Logger } from 'pino';
import type { Config } from '../settings/all.js';
import type { Db } from '../storage/executor.js';
import type { Mode, TransactionsTable } from '../storage/schema.js';
import type { CreateTransactionInput } from './transactions/create-input.js';
import type { ServiceState } from './state.js';
import type { SourceCatalog } from './sources/source-view.js';

/**
 * What every service is given: the database, the settings, a clock (tests move time), the logger, the
 * issuers, the source kinds and the in-memory state.
 */
export interface Deps {
  db: Db;
  config: Config;
  now: () => number;
  /** Where background work and services log; a silent one when nothing should be written (silentLogger, http/logger.ts). */
  logger: Logger;
  /**
   * Which issuer makes a merchant's codes. Passed in from above because issuers that call out (SNAP)
   * live with the payment sources, which call services and are never imported by them.
   */
  issuers: IssuerResolver;
  /** What each kind of payment source shows and whether it is polled: the kind registry (payment-sources/kinds.ts), passed in for the same reason. */
  sources: SourceCatalog;
  /** Caches and queues kept between requests (state.ts). */
  state: ServiceState;
}

/**
 * Where a transaction's code comes from: the merchant's static QRIS made dynamic with a unique code,
 * or an acquirer that issues codes itself. (Declared here, next to Deps, so that neither file imports
 * the other.)
 */
export interface CodeIssuer {
  /**
   * Makes the pending transaction with a code of this issuer. Called outside any database transaction;
   * throws LostRace (transactions/lost-race.ts) when a concurrent create with the same ref or Idempotency-Key
   * committed first.
   */
  issue(deps: Deps, input: CreateTransactionInput): Promise<TransactionsTable>;
  /**
   * Voids a pending transaction's code before it is marked cancelled. 'paid' when the payer paid first
   * (that payment is then recorded). Never inside a database transaction.
   */
  cancel(deps: Deps, tx: TransactionsTable): Promise<'cancelled' | 'paid'>;
  /**
   * How this issuer's paid money goes back. 'acquirer': refund() asks the acquirer to move it.
   * 'record': the gateway cannot move money (a code made from the merchant's static QRIS), so a refund is
   * a record that the merchant paid it back outside the gateway, and refund() is never called.
   */
  refunds: 'acquirer' | 'record';
  /**
   * Asks the acquirer to refund part or all of a paid transaction. Never inside a database transaction
   * (it waits on the network). The same refund.id on a retry must never refund twice (it is the
   * acquirer's partnerRefundNo). Throws AppError acquirer_unavailable when there is no answer (timeout,
   * network error, 5xx): the refund may or may not have happened and is asked again later.
   */
  refund(deps: Deps, tx: TransactionsTable, refund: IssuerRefund): Promise<IssuerRefundOutcome>;
}

/** What a refund asks of the issuer of the paid transaction's code. */
export interface IssuerRefund {
  /** The refund's id (rf_...): the same on every retry of this refund. */
  id: string;
  amount: number;
  reason: string;
}

/**
 * The acquirer's answer to a refund. 'in_progress': accepted, not final yet (ask again later with the
 * same id). 'refused': final, nothing was refunded; code is a stable error code (refund_refused, or
 * refund_exceeds_remaining when the acquirer counts less left than the gateway does).
 */
export type IssuerRefundOutcome =
  | { status: 'succeeded'; reference: string | null; completedAt: number }
  | { status: 'in_progress'; reference: string | null }
  | { status: 'refused'; code: 'refund_refused' | 'refund_exceeds_remaining'; message: string };

export interface IssuerResolver {
  /** The issuer of a merchant's new codes in a mode. Asked on every create, so it must be cheap. */
  forMerchant(deps: Deps, merchantId: string, mode: Mode): Promise<CodeIssuer>;
  /** The issuer that made this transaction's code. */
  forTransaction(deps: Deps, tx: TransactionsTable): Promise<CodeIssuer>;
}
