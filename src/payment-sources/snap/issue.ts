// Acquirer-issued codes: for a merchant with a SNAP source, cqris asks the acquirer for the code
// (qr-mpm-generate) instead of deriving it from the static QRIS.
import { AppError } from '../../domain/errors.js';
import { newTransactionId } from '../../domain/ids.js';
import { parseQris } from '../../domain/qris/index.js';
import { lifetime } from '../../domain/unique-codes.js';
import type { CreateTransactionInput } from '../../services/transactions/create-input.js';
import type { Deps } from '../../services/deps.js';
import { insertRow } from '../../services/transactions/insert-transaction.js';
import { pendingRow } from '../../services/transactions/pending-row.js';
import type { Tx } from '../../storage/executor.js';
import { insertSnapPoll } from '../../storage/queries/snap.js';
import type { TransactionsTable } from '../../storage/schema.js';
import { SnapClient } from './client.js';
import type { SnapSource } from './config.js';

/**
 * The acquirer's code: no unique code and no reserved total, since payments are matched by the
 * acquirer's reference. The acquirer is called before the database transaction opens, so a slow
 * acquirer never holds a write lock; a create that then loses a ref race leaves an unused code at the
 * acquirer, which expires there.
 */
export async function issueAtAcquirer(
  deps: Deps,
  source: SnapSource,
  input: CreateTransactionInput,
): Promise<TransactionsTable> {
  if (input.amount > deps.config.amountMax) {
    throw new AppError('amount_out_of_range', `amount is above the maximum of ${deps.config.amountMax}`, {
      param: 'amount',
    });
  }
  const now = deps.now();
  const id = newTransactionId();
  const expiresAt = acquirerExpiry(source, now, lifetime(deps.config, input.expiresInSeconds, now).expiresAt);
  const code = await requestAcquirerCode(deps, source, { trxid: id, amount: input.amount, expiresAt });
  const row = pendingRow(input, {
    id,
    now,
    expiresAt,
    uniqueCode: 0,
    qris: code.qris,
    sourceId: source.id,
    acquirerReference: code.referenceNo,
  });
  return deps.db.runInTransaction(async (trx) => {
    await insertRow(trx, input, row, now);
    await schedulePoll(trx, { transactionId: id, sourceId: source.id, createdAt: now, expiresAt });
    return row;
  });
}

export interface AcquirerCode {
  referenceNo: string;
  qris: string;
}

/** Calls generate and checks that what came back is a QRIS of this amount. Never inside a DB transaction. */
export async function requestAcquirerCode(
  deps: Deps,
  source: SnapSource,
  input: { trxid: string; amount: number; expiresAt: number },
): Promise<AcquirerCode> {
  const client = new SnapClient(source, deps);
  const { referenceNo, qrContent } = await client.generate({
    partnerReferenceNo: input.trxid,
    amount: input.amount,
    validUntil: input.expiresAt,
  });
  let amount: number | null;
  try {
    amount = parseQris(qrContent).amount;
  } catch (err) {
    // The payer could not pay a broken code; say whose fault it is rather than invalid_qris.
    throw new AppError(
      'acquirer_error',
      `the acquirer's qrContent is not a valid QRIS: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (amount !== null && amount !== input.amount) {
    throw new AppError('acquirer_error', `the acquirer's code is for ${amount}, not the ${input.amount} requested`);
  }
  return { referenceNo, qris: qrContent };
}

/** The transaction's expiry, capped to how long the acquirer keeps a code payable. */
export function acquirerExpiry(source: SnapSource, now: number, expiresAt: number): number {
  const cap = source.config.validitySeconds;
  return cap === null ? expiresAt : Math.min(expiresAt, now + cap * 1000);
}

// The first query comes this long after creation; payers rarely finish sooner.
export const FIRST_POLL_DELAY_MS = 5000;
// Acquirers settle a payment made in the code's last seconds a little later; keep asking this long.
const POLL_AFTER_EXPIRY_MS = 5 * 60_000;

/** Written in the create's database transaction: the query poller's schedule for this code. */
export async function schedulePoll(
  trx: Tx,
  row: { transactionId: string; sourceId: string; createdAt: number; expiresAt: number },
): Promise<void> {
  await insertSnapPoll(trx, {
    transaction_id: row.transactionId,
    source_id: row.sourceId,
    attempts: 0,
    next_poll_at: row.createdAt + FIRST_POLL_DELAY_MS,
    stop_after: row.expiresAt + POLL_AFTER_EXPIRY_MS,
  });
}
