import { type Kysely, sql } from 'kysely';

// Refunds (issue 28, section 1): money that goes back to a payer. One row per refund asked for, whatever
// became of it; the transaction keeps two running sums beside its amount_paid so that the rule "the
// refunds of a transaction never exceed what it received" is one conditional UPDATE on one row, on both
// databases and across instances:
//   refunded_amount: the sum of its succeeded refunds (what the API answers);
//   refund_held:     the sum of its refunds still pending (asked of an acquirer, no final answer yet);
//   refund_count:    how many refunds it has had, of any status, so that a read of a transaction that
//                    never had one (nearly every read) does not look for its refunds.
// A refund is admitted only while refunded_amount + refund_held + amount <= amount_paid; a pending refund
// moves its amount from refund_held to refunded_amount when it succeeds, or gives it back when it fails.
//
// A refund of a double payment (a second payment for a transaction already paid, kept unmatched) names
// that payment: its money never became the transaction's, so it does not touch the sums above; at most
// one refund per payment (a partial unique index), for the payment's whole amount.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('refunds')
    // rf_...: also the partnerRefundNo sent to an acquirer, so a retry of the same refund is safe there.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    // pending | succeeded | failed
    .addColumn('status', 'text', (c) => c.notNull())
    // 1: the gateway cannot move this money (a code made from the merchant's static QRIS): the row records
    // that the merchant paid it back outside the gateway (cash, transfer); it succeeds when recorded.
    .addColumn('recorded', 'integer', (c) => c.notNull().defaultTo(0))
    // The acquirer's referenceNo of the refund, or the merchant's own reference of a recorded one.
    .addColumn('reference', 'text')
    // A double payment's refund: the payment it pays back (else null).
    .addColumn('payment_id', 'text')
    // Who asked: an audit actor ('api_key:...', 'user:...', 'cli').
    .addColumn('requested_by', 'text', (c) => c.notNull())
    // The Idempotency-Key it was asked with (per merchant), and the hash of the request it named.
    .addColumn('idempotency_key', 'text')
    .addColumn('request_hash', 'text')
    // Why it failed: a stable error code (refund_refused, ...) and the acquirer's words.
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    // Asks of the acquirer so far, and when a pending one is asked again (in progress, or no answer).
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    // When it became final at the acquirer (its refundTime) or was recorded.
    .addColumn('completed_at', 'bigint')
    .execute();
  // A transaction's refunds, oldest first (the API's refunds list).
  await db.schema.createIndex('refunds_transaction').on('refunds').columns(['transaction_id', 'created_at']).execute();
  // Reports: a merchant's refunds of a range of days.
  await db.schema
    .createIndex('refunds_merchant_created')
    .on('refunds')
    .columns(['merchant_id', 'mode', 'created_at'])
    .execute();
  await db.schema
    .createIndex('refunds_idempotency_key')
    .on('refunds')
    .columns(['merchant_id', 'idempotency_key'])
    .unique()
    .where('idempotency_key', 'is not', null)
    .execute();
  await db.schema
    .createIndex('refunds_payment')
    .on('refunds')
    .column('payment_id')
    .unique()
    .where('payment_id', 'is not', null)
    .execute();
  // The refunds an acquirer has not answered finally yet, by when to ask again.
  await db.schema
    .createIndex('refunds_pending')
    .on('refunds')
    .column('next_attempt_at')
    .where(sql.ref('status'), '=', 'pending')
    .execute();

  await db.schema
    .alterTable('transactions')
    .addColumn('refunded_amount', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('transactions')
    .addColumn('refund_held', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('transactions')
    .addColumn('refund_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').dropColumn('refund_count').execute();
  await db.schema.alterTable('transactions').dropColumn('refund_held').execute();
  await db.schema.alterTable('transactions').dropColumn('refunded_amount').execute();
  await db.schema.dropTable('refunds').execute();
}
