import { AppError } from '../domain/errors.js';
import type { PaymentsTable, TransactionsTable } from '../storage/schema.js';
import type { Principal } from '../services/merchants/principal-cache.js';
import type { Deps } from '../services/deps.js';
import { getTransaction } from '../services/transactions/get-transaction.js';
import { recordPayment } from '../services/payments/record-payment.js';

export interface SimulatedPayment {
  transaction: TransactionsTable;
  payment: PaymentsTable | null;
  outcome: 'matched' | 'unmatched' | 'duplicate';
}

/**
 * The sandbox's payment source: it reports a payment for a test transaction through the same
 * record-payment service every real source uses. The payment id is derived from the transaction so
 * that pressing "pay" twice is one payment.
 */
export async function simulatePayment(
  deps: Deps,
  owner: Pick<Principal, 'merchantId' | 'mode'>,
  trxid: string,
  amount: number | null = null,
): Promise<SimulatedPayment> {
  if (owner.mode !== 'test') {
    throw new AppError('test_mode_only', 'payments can be simulated only with a sk_test_ key');
  }
  const { transaction } = await getTransaction(deps, owner, trxid);
  if (transaction.status === 'paid') {
    throw new AppError('transaction_already_paid', `transaction ${trxid} is already paid`, { param: 'trxid' });
  }
  const paidAmount = amount ?? transaction.total_amount;
  const result = await recordPayment(deps, {
    merchantId: transaction.merchant_id,
    mode: 'test',
    source: 'simulator',
    sourcePaymentId: paidAmount === transaction.total_amount ? trxid : `${trxid}:${paidAmount}`,
    amount: paidAmount,
    paidAt: deps.now(),
    trxid,
    reference: `SIM-${trxid.slice(4, 16)}`,
    payerName: 'Sandbox Payer',
    issuer: 'SIMULATOR',
  });
  const after = await getTransaction(deps, owner, trxid);
  return { transaction: after.transaction, payment: after.payment, outcome: result.outcome };
}
