import { createHash } from 'node:crypto';
import { linkRef, LINK_NAMESPACE, replayBucket } from '../../domain/payment-link.js';
import { effectiveStatus } from '../../domain/transaction.js';
import type { TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { createTransaction, type CreateTransactionInput } from '../transactions/create-transaction.js';

export interface LinkPaymentInput {
  merchantId: string;
  handle: string;
  /** Whole rupiah, validated as the API validates it. */
  amount: number;
  email: string | null;
  ref: string | null;
  /** The payer's address as per-client limits count it (domain/client-address.ts). */
  clientKey: string;
}

// A finished transaction (paid, expired, cancelled) is not given again to a payer who opens the same link
// in the same window: they pay a second time. Each such round derives the next key from the last
// transaction, so concurrent reloads still agree on one; a few rounds are plenty within ten minutes.
const MAX_ROUNDS = 5;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * A live transaction for a payment link. Links are opened by link previewers (WhatsApp, Telegram) and
 * reloaded by payers, so opening one is idempotent for a while: with a `ref`, the ref replay gives the
 * same transaction (among the links' refs, `link:...`, never the API's); without one, the same payer (client address) opening the same link (handle,
 * amount, e-mail) within the same ten-minute window gets the same pending transaction, through the
 * create's Idempotency-Key.
 */
export async function createLinkTransaction(deps: Deps, input: LinkPaymentInput): Promise<TransactionsTable> {
  const base: Omit<CreateTransactionInput, 'idempotency'> = {
    merchantId: input.merchantId,
    mode: 'live',
    amount: input.amount,
    email: input.email,
    // In the links' own namespace: never the merchant's API's `ref`, which a payer must not take or answer for.
    ref: input.ref === null ? null : linkRef(input.ref),
    expiresInSeconds: null,
    origin: 'link',
  };
  if (input.ref !== null) return (await createTransaction(deps, { ...base, idempotency: null })).transaction;

  const requestHash = sha256(JSON.stringify({ link: input.handle, amount: input.amount, email: input.email }));
  let key = sha256(
    JSON.stringify([
      'payment-link',
      input.handle,
      input.amount,
      input.email,
      input.clientKey,
      replayBucket(deps.now()),
    ]),
  );
  for (let round = 1; ; round++) {
    const result = await createTransaction(deps, {
      ...base,
      idempotency: { key: `${LINK_NAMESPACE}${key}`, requestHash },
    });
    const tx = result.transaction;
    if (!result.replayed || effectiveStatus(tx, deps.now()) === 'pending' || round === MAX_ROUNDS) return tx;
    key = sha256(`${key}:${tx.id}`);
  }
}
