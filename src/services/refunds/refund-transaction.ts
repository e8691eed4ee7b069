import { type Actor, actorText } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { newRefundId } from '../../domain/ids.js';
import { presentRefund, refundableRemainder, type RefundView } from '../../domain/refund.js';
import { effectiveStatus, presentTransaction, type TransactionView } from '../../domain/transaction.js';
import type { Tx } from '../../storage/executor.js';
import {
  findRefundByKey,
  holdRefund,
  insertRefundUnlessKeyTaken,
  markRefundSucceeded,
  moveHeldToRefunded,
} from '../../storage/queries/refunds.js';
import { readExistingTransaction, readTransaction } from '../../storage/queries/transactions.js';
import type { Mode, PaymentsTable, RefundsTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { askAcquirerRefund } from './ask-acquirer-refund.js';
import { failureOf } from './refund-failure.js';
import { getTransaction } from '../transactions/get-transaction.js';
import { getTransactionById } from '../transactions/get-transaction-by-id.js';
import { LostRace } from '../transactions/lost-race.js';
import { paymentOf } from '../transactions/payment-of.js';
import { announceRefund } from './announce-refund.js';
import { refundsOf } from './refunds-of.js';

export interface RefundTransactionInput {
  trxid: string;
  /** The API key's (or console viewer's) merchant and mode; null for the CLI's operator, who may refund any. */
  owner: { merchantId: string; mode: Mode } | null;
  /** Whole rupiah; null: everything that remains of what it received. */
  amount: number | null;
  reason: string;
  /** The merchant's own reference of a recorded refund (a static-QRIS code); ignored for an acquirer's. */
  reference: string | null;
  idempotency: { key: string; requestHash: string } | null;
  /** Who asked, stored on the refund and in the audit log. */
  actor: Actor;
}

/** The transaction after the refund, and the refund itself (with what it means, said plainly). */
export interface RefundResult {
  transaction: TransactionView & { refund: RefundView & { note: string } };
  /** True when an earlier request with the same Idempotency-Key made this refund. */
  replayed: boolean;
}

// The acquirer's first ask happens right after the refund is recorded; until it is answered the resolver
// leaves the refund alone (then it is due, should this process die mid-ask).
const FIRST_ASK_LEASE_MS = 120_000;

/**
 * Refunds part or all of a paid transaction. The amount is admitted by one conditional update of the
 * transaction (storage/queries/refunds.ts), so refunds never sum over what it received. A code made from
 * the merchant's static QRIS is refunded by the merchant outside the gateway: the refund is a record and
 * succeeds at once. An acquirer's code is refunded by asking the acquirer (ask-acquirer-refund.ts).
 */
export async function refundTransaction(deps: Deps, input: RefundTransactionInput): Promise<RefundResult> {
  const tx =
    input.owner === null
      ? await getTransactionById(deps, input.trxid)
      : (await getTransaction(deps, input.owner, input.trxid)).transaction;
  const idemKey = input.idempotency === null ? null : `${tx.mode}:${input.idempotency.key}`;
  const earlier = idemKey === null ? undefined : await findRefundByKey(deps.db, tx.merchant_id, idemKey);
  if (earlier) return replay(deps, input, earlier);
  if (effectiveStatus(tx, deps.now()) !== 'paid') throw notPaid(tx.id);

  const issuer = await deps.issuers.forTransaction(deps, tx);
  const recorded = issuer.refunds === 'record';
  const payment = await paymentOf(deps, tx);
  let refund: RefundsTable;
  try {
    refund = await deps.db.runInTransaction((trx) => admit(trx, deps, input, idemKey, recorded, payment));
  } catch (err) {
    if (!(err instanceof LostRace)) throw err;
    // Another request with the same Idempotency-Key committed first: answer as a replay of it.
    const winner = await findRefundByKey(deps.db, tx.merchant_id, idemKey!);
    if (winner) return replay(deps, input, winner);
    throw new AppError('service_unavailable', 'a concurrent request interfered; retry', { retryAfter: 1 });
  }
  if (recorded) return { transaction: await answer(deps, refund), replayed: false };

  const fresh = (await readTransaction(deps.db, tx.id)) ?? tx;
  const asked = await askAcquirerRefund(deps, issuer, fresh, payment, refund);
  if (asked.error) throw asked.error;
  return { transaction: await answer(deps, asked.refund), replayed: false };
}

/** Records the refund and holds its amount (and, for a recorded one, completes it), in one unit of work. */
async function admit(
  trx: Tx,
  deps: Deps,
  input: RefundTransactionInput,
  idemKey: string | null,
  recorded: boolean,
  payment: PaymentsTable | null,
) {
  const now = deps.now();
  const tx = await readExistingTransaction(trx, input.trxid);
  if (tx.status !== 'paid') throw notPaid(tx.id);
  const remainder = refundableRemainder(tx);
  const amount = input.amount ?? remainder;
  if (amount < 1 || amount > remainder) throw exceeds(tx.id, remainder);
  const row: RefundsTable = {
    id: newRefundId(),
    transaction_id: tx.id,
    merchant_id: tx.merchant_id,
    mode: tx.mode,
    amount,
    reason: input.reason,
    status: 'pending',
    recorded: recorded ? 1 : 0,
    reference: recorded ? input.reference : null,
    payment_id: null,
    requested_by: actorText(input.actor),
    idempotency_key: idemKey,
    request_hash: input.idempotency?.requestHash ?? null,
    error_code: null,
    error_message: null,
    attempts: 0,
    next_attempt_at: recorded ? null : now + FIRST_ASK_LEASE_MS,
    created_at: now,
    updated_at: now,
    completed_at: null,
  };
  // The key first: a racing retry of the same request waits here and then answers this refund, instead
  // of failing on the remainder this one is about to hold.
  if (!(await insertRefundUnlessKeyTaken(trx, row))) throw new LostRace();
  // Conditional: concurrent refunds (any instance) may have taken the remainder, or the last of the
  // REFUND_MAX_PER_TRANSACTION places, since it was read.
  const max = deps.config.refundMaxPerTransaction;
  const held = await holdRefund(trx, tx.id, amount, max, now);
  if (!held) {
    const latest = await readExistingTransaction(trx, tx.id);
    if (latest.status !== 'paid') throw notPaid(tx.id);
    const left = refundableRemainder(latest);
    throw amount > left ? exceeds(tx.id, left) : limitReached(tx.id, max);
  }
  await writeAudit(trx, {
    actor: input.actor,
    action: 'transaction.refund',
    subjectType: 'transaction',
    subjectId: tx.id,
    details: { refund_id: row.id, amount, recorded },
    now,
  });
  if (!recorded) return row;
  const done = (await markRefundSucceeded(trx, row.id, {
    reference: input.reference,
    completedAt: now,
    attempts: 0,
    now,
  }))!;
  const updated = await moveHeldToRefunded(trx, tx.id, amount, now);
  await announceRefund(trx, deps, updated, payment, done);
  return done;
}

/** The same Idempotency-Key again: the same request answers its refund as it now stands; another is refused. */
async function replay(deps: Deps, input: RefundTransactionInput, earlier: RefundsTable): Promise<RefundResult> {
  if (earlier.request_hash !== input.idempotency!.requestHash) {
    throw new AppError('idempotency_key_reused', 'this Idempotency-Key was used with a different request', {
      param: 'Idempotency-Key',
    });
  }
  if (earlier.status === 'failed') throw failureOf(earlier);
  return { transaction: await answer(deps, earlier), replayed: true };
}

async function answer(deps: Deps, refund: RefundsTable): Promise<RefundResult['transaction']> {
  const tx = (await readTransaction(deps.db, refund.transaction_id))!;
  const view = presentTransaction(
    tx,
    await paymentOf(deps, tx),
    deps.now(),
    deps.config.publicBaseUrl,
    await refundsOf(deps, tx),
  );
  return { ...view, refund: { ...presentRefund(refund), note: noteOf(refund) } };
}

/** What the refund means, in plain words: above all whether the gateway moved any money. */
function noteOf(refund: Pick<RefundsTable, 'recorded' | 'status'>): string {
  if (refund.recorded === 1) {
    return 'Recorded only: the gateway moved no money. This code was made from your static QRIS, so the payment went to your own account; this records that you paid it back yourself.';
  }
  if (refund.status === 'succeeded') return 'Refunded by the acquirer to the payer.';
  if (refund.status === 'pending')
    return 'Asked of the acquirer; not final yet. Its amount is held until the acquirer answers.';
  return 'Refused: nothing was refunded.';
}

function notPaid(trxid: string): AppError {
  return new AppError('transaction_not_paid', `transaction ${trxid} is not paid: there is nothing to refund`, {
    param: 'trxid',
  });
}

function limitReached(trxid: string, max: number): AppError {
  return new AppError(
    'refund_limit_reached',
    `transaction ${trxid} has had ${max} refunds, the most one transaction may have (REFUND_MAX_PER_TRANSACTION): nothing was refunded`,
    { param: 'trxid' },
  );
}

function exceeds(trxid: string, remainder: number): AppError {
  return new AppError(
    'refund_exceeds_remaining',
    `the refunds of transaction ${trxid} would exceed what it received: ${remainder} remains`,
    {
      param: 'amount',
    },
  );
}
