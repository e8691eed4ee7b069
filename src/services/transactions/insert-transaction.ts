import { userActor } from '../../domain/actor.js';
import type { Tx } from '../../storage/executor.js';
import { writeAudit } from '../audit.js';
import { insertTransactionIfAbsent } from '../../storage/queries/transactions.js';
import type { TransactionsTable } from '../../storage/schema.js';
import { consumeQuota } from '../merchants/consume-quota.js';
import { claimKey } from './claim-key.js';
import type { CreateTransactionInput } from './create-input.js';
import { LostRace } from './lost-race.js';
import { queueInvoice } from './queue-invoice.js';

// Writing a new pending transaction, whichever issuer made its code.

/**
 * The transaction row, its Idempotency-Key claim (unless the caller made it first) and its invoice
 * e-mail; LostRace on a lost unique key.
 */
export async function insertRow(
  trx: Tx,
  input: CreateTransactionInput,
  row: TransactionsTable,
  now: number,
  keyClaimed = false,
): Promise<void> {
  if (!(await insertTransactionIfAbsent(trx, row))) throw new LostRace();
  if (input.dailyQuota != null) await consumeQuota(trx, input.merchantId, input.dailyQuota, now);
  if (input.idempotency && !keyClaimed) await claimKey(trx, input, row.id, now);
  if (row.email !== null) await queueInvoice(trx, row, now);
  // The audit log names who made each sale, in the same transaction as the sale itself.
  if (input.sale) {
    await writeAudit(trx, {
      actor: userActor(input.sale),
      action: 'transaction.sale',
      subjectType: 'transaction',
      subjectId: row.id,
      details: {
        amount: row.amount,
        total_amount: row.total_amount,
        mode: row.mode,
        description: input.sale.description,
      },
      now,
    });
  }
}
