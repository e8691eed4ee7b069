import type { Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { cancelDecision, presentTransaction, type TransactionView } from '../../domain/transaction.js';
import type { Tx } from '../../storage/executor.js';
import { shortenReservation } from '../../storage/queries/reservations.js';
import { cancelPendingTransaction, readExistingTransaction } from '../../storage/queries/transactions.js';
import { skipQueuedInvoice } from '../../storage/queries/emails.js';
import type { Mode, TransactionsTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { getTransaction } from './get-transaction.js';
import { getTransactionById } from './get-transaction-by-id.js';
import { paymentOf } from './payment-of.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';

export interface CancelTransactionInput {
  trxid: string;
  /** The API key's merchant and mode; null for an operator, who may cancel any transaction. */
  owner: { merchantId: string; mode: Mode } | null;
  /** Operators' cancels are audited under this name. */
  actor?: Actor | null;
}

/**
 * Cancels a pending transaction: its status, its `transaction.cancelled` event and the dropping of its
 * queued invoice commit together. Cancelling a cancelled transaction answers it as it is.
 *
 * A code made from the merchant's static QRIS cannot be revoked at the payer's bank, so its total stays
 * reserved for the reservation grace after the cancel (as after expiry): money that still arrives is
 * matched to it and marks it paid late. An acquirer-issued code is voided at the acquirer first.
 */
export async function cancelTransaction(deps: Deps, input: CancelTransactionInput): Promise<TransactionView> {
  const current =
    input.owner === null
      ? await getTransactionById(deps, input.trxid)
      : (await getTransaction(deps, input.owner, input.trxid)).transaction;
  const decision = cancelDecision(current, deps.now());
  if (decision === 'already_cancelled') return present(deps, current);
  if (decision !== 'cancel') throw refusal(decision, current.id);

  // Only the code's issuer can void it (the static QRIS issuer has nothing to void).
  const issuer = await deps.issuers.forTransaction(deps, current);
  if ((await issuer.cancel(deps, current)) === 'paid') throw refusal('paid', current.id);

  const cancelled = await deps.db.runInTransaction((trx) => cancelIn(trx, deps, current.id, input.actor ?? null));
  return present(deps, cancelled);
}

async function cancelIn(trx: Tx, deps: Deps, trxid: string, actor: Actor | null): Promise<TransactionsTable> {
  const now = deps.now();
  // Conditional: a payment or the expiry sweeper may have changed the row since it was read.
  const row = await cancelPendingTransaction(trx, trxid, now);
  if (!row) {
    const latest = await readExistingTransaction(trx, trxid);
    const decision = cancelDecision(latest, now);
    if (decision === 'already_cancelled') return latest;
    throw refusal(decision === 'cancel' ? 'expired' : decision, trxid);
  }
  const graceEnds = now + deps.config.reservationGraceSeconds * 1000;
  await shortenReservation(trx, trxid, graceEnds);
  // A queued invoice would ask the payer to pay a cancelled order. One a mailer holds right now is left
  // to it: the mailer re-reads the status before sending.
  await skipQueuedInvoice(trx, trxid, 'transaction_cancelled', now);
  await enqueueEvent(trx, deps.state.statusBus, {
    merchantId: row.merchant_id,
    mode: row.mode,
    type: 'transaction.cancelled',
    transactionId: row.id,
    data: presentTransaction(row, null, now, deps.config.publicBaseUrl),
    now,
  });
  if (actor !== null) {
    await writeAudit(trx, { actor, action: 'transaction.cancel', subjectType: 'transaction', subjectId: row.id, now });
  }
  return row;
}

function refusal(decision: 'paid' | 'expired', trxid: string): AppError {
  return decision === 'paid'
    ? new AppError('transaction_already_paid', `transaction ${trxid} is already paid`, { param: 'trxid' })
    : new AppError('transaction_expired', `transaction ${trxid} has expired`, { param: 'trxid' });
}

async function present(deps: Deps, tx: TransactionsTable): Promise<TransactionView> {
  return presentTransaction(tx, await paymentOf(deps, tx), deps.now(), deps.config.publicBaseUrl);
}
