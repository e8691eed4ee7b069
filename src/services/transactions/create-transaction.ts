import { AppError } from '../../domain/errors.js';
import { inLinkNamespace, LINK_NAMESPACE } from '../../domain/payment-link.js';
import { readIdempotencyKey } from '../../storage/queries/idempotency.js';
import { readTransaction, readTransactionByRef } from '../../storage/queries/transactions.js';
import type { TransactionsTable } from '../../storage/schema.js';
import type { CreateTransactionInput } from './create-input.js';
import type { Deps } from '../deps.js';
import { idempotencyKey } from './idempotency-row.js';
import { LostRace } from './lost-race.js';
import { checkQuota } from '../merchants/check-quota.js';
import { dailyLimitOf } from '../merchants/daily-limit-of.js';
import { quotaOf } from '../merchants/quota-of.js';
import { checkPayerEmail } from '../merchants/payer-email.js';

export type { CreateTransactionInput } from './create-input.js';

export interface CreateTransactionResult {
  transaction: TransactionsTable;
  /** True when an earlier transaction was returned for a repeated ref or Idempotency-Key. */
  replayed: boolean;
  /**
   * The merchant's API daily quota (null: none) as this create read it for its own check, so that the
   * route's quota headers need not look it up again; undefined when it was not read (a replay answered
   * before the check, a payment link's create).
   */
  apiQuota: number | null | undefined;
}

export async function createTransaction(deps: Deps, input: CreateTransactionInput): Promise<CreateTransactionResult> {
  if (input.origin !== 'link') refuseLinkNamespace(input);
  const earlier = await findEarlier(deps, input);
  if (earlier) return { transaction: earlier, replayed: true, apiQuota: undefined };
  // A merchant waiting for approval mails nobody but its own users (refused before any work is done).
  if (input.email !== null) await checkPayerEmail(deps, input.merchantId, input.email);

  // A replay above is never refused for the quota: it creates nothing. A limited create is counted inside
  // its own database transaction (insert-transaction.ts); this early look only saves the work (an
  // acquirer's code) of a create that could not be kept. A payment link's create is held to the links'
  // own cap, never to the merchant's API quota, which anonymous payers must not be able to use up.
  const origin = input.origin ?? 'api';
  const apiQuota = origin === 'api' ? await quotaOf(deps, input.merchantId) : undefined;
  const dailyQuota = dailyLimitOf(deps, origin, apiQuota ?? null);
  if (dailyQuota !== null) await checkQuota(deps, input.merchantId, dailyQuota);
  const limited = { ...input, dailyQuota };
  try {
    // The merchant's static QRIS with a unique code, or its acquirer's code (a SNAP source).
    const issuer = await deps.issuers.forMerchant(deps, input.merchantId, input.mode);
    return { transaction: await issuer.issue(deps, limited), replayed: false, apiQuota };
  } catch (err) {
    if (!(err instanceof LostRace)) throw err;
    // Another request with the same ref or Idempotency-Key committed first: answer as a replay of it.
    const winner = await findEarlier(deps, input);
    if (winner) return { transaction: winner, replayed: true, apiQuota };
    throw new AppError('service_unavailable', 'a concurrent request interfered; retry', { retryAfter: 1 });
  }
}

/** The API's refs and keys are its own: those of payment links (`link:...`) can be neither made nor replayed by it. */
function refuseLinkNamespace(input: CreateTransactionInput): void {
  if (input.ref !== null && inLinkNamespace(input.ref)) {
    throw new AppError('invalid_parameter', `refs beginning with ${LINK_NAMESPACE} are reserved for payment links`, {
      param: 'ref',
    });
  }
  if (input.idempotency && inLinkNamespace(input.idempotency.key)) {
    throw new AppError(
      'invalid_parameter',
      `Idempotency-Keys beginning with ${LINK_NAMESPACE} are reserved for payment links`,
      {
        param: 'Idempotency-Key',
      },
    );
  }
}

/** The transaction an earlier request with the same Idempotency-Key or ref created, if any. */
async function findEarlier(deps: Deps, input: CreateTransactionInput): Promise<TransactionsTable | null> {
  if (input.idempotency) {
    const prior = await readIdempotencyKey(deps.db, input.merchantId, idempotencyKey(input));
    if (prior) {
      if (prior.request_hash !== input.idempotency.requestHash) {
        throw new AppError('idempotency_key_reused', 'this Idempotency-Key was used with a different request', {
          param: 'Idempotency-Key',
        });
      }
      const tx = await readTransaction(deps.db, prior.transaction_id);
      if (tx) return tx;
    }
  }
  if (input.ref !== null) {
    const tx = await readTransactionByRef(deps.db, input.merchantId, input.mode, input.ref);
    if (tx) {
      if (tx.amount !== input.amount) {
        throw new AppError('ref_conflict', `ref ${input.ref} already belongs to a transaction of another amount`, {
          param: 'ref',
        });
      }
      return tx;
    }
  }
  return null;
}
