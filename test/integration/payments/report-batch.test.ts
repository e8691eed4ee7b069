// Payment reports recorded together (record-payment.ts, report-batch.ts): reports handed over in one turn
// share one unit of work; a batch marks its transactions paid in one statement, each only if it still has
// the state it was read in, and rolls back (ReportsRaced) when another unit of work changed one, after
// which every report is recorded again on its own, seeing that change. On both databases.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordPayment, recordPaymentsIn } from '../../../src/services/payments/record-payment.js';
import { ReportBatch, ReportsRaced } from '../../../src/services/payments/report-batch.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { paymentsOfTransaction } from '../../../src/storage/queries/payments.js';
import type { Tx } from '../../../src/storage/executor.js';
import { readTransaction } from '../../../src/storage/queries/transactions.js';
import { listenForStatusNotifications } from '../../../src/storage/queries/status-notify.js';
import { createInput, createTestApp, onPostgres, type TestApp } from '../../helpers/context.js';
import { hookStatements } from '../../helpers/statement-hook.js';

let t: TestApp;
let amount = 52_000;
let seq = 0;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const newTransaction = async () => (await createTransaction(t.deps, createInput(t.merchant.id, ++amount))).transaction;
const report = (paid: number) => ({
  merchantId: t.merchant.id,
  mode: 'test' as const,
  source: 'batch-feed',
  sourcePaymentId: `batch-${++seq}`,
  amount: paid,
  paidAt: t.clock.now(),
});

/** A batch of several reports that has read the transaction and will mark it paid at its flush. */
async function batchPaying(trx: Tx, trxid: string): Promise<ReportBatch> {
  const batch = new ReportBatch(t.clock.now(), new Set(), true);
  const candidate = (await readTransaction(trx, trxid))!;
  batch.markPaid(candidate, {
    paymentId: 'pay_not_stored',
    paidAt: t.clock.now(),
    late: false,
    now: t.clock.now(),
    amountPaidBefore: 0,
    amountPaid: candidate.total_amount,
    underpaid: 0,
    overpaid: 0,
  });
  return batch;
}

describe('payment reports recorded together', () => {
  it('reports handed over in one turn are one batch, answered as one by one would be', async () => {
    const txs = await Promise.all([newTransaction(), newTransaction(), newTransaction()]);
    const stats = { ...t.deps.state.payments.stats };
    const first = report(txs[0]!.total_amount);
    const results = await Promise.all([
      recordPayment(t.deps, first),
      recordPayment(t.deps, report(txs[1]!.total_amount)),
      recordPayment(t.deps, { ...first }),
      recordPayment(t.deps, report(txs[2]!.total_amount)),
      recordPayment(t.deps, report(txs[2]!.total_amount)),
      recordPayment(t.deps, report(1)),
    ]);
    expect(t.deps.state.payments.stats.batches).toBe(stats.batches + 1);
    expect(t.deps.state.payments.stats.reports).toBe(stats.reports + 6);
    expect(results.map((r) => [r.outcome, r.reason])).toEqual([
      ['matched', null],
      ['matched', null],
      ['duplicate', null],
      ['matched', null],
      ['unmatched', 'transaction_already_paid'],
      ['unmatched', 'no_matching_transaction'],
    ]);
    // The repeat is answered with the row its first report stored, as it is now: bound to the transaction.
    expect(results[2]!.payment.id).toBe(results[0]!.payment.id);
    expect(results[2]!.payment.transaction_id).toBe(txs[0]!.id);
    for (const [i, tx] of txs.entries()) {
      const row = await readTransaction(t.deps.db, tx.id);
      // The row the batch answered with is the row the database holds.
      expect(results[i === 2 ? 3 : i]!.transaction).toEqual(row);
      expect(row?.status).toBe('paid');
      expect((await paymentsOfTransaction(t.deps.db, tx.id)).map((p) => p.status)).toEqual(['matched']);
    }
  });

  it('a batch whose transaction changed since it was read rolls back (ReportsRaced), and its reports are recorded again one by one', async () => {
    const tx = await newTransaction();
    const failedBefore = t.deps.state.payments.stats.failed;
    // The unit of work below reads the candidate, then another change lands before its flush: the
    // transaction is paid in between by a report of its own (as another gateway process would).
    const raced = t.deps.db.runInTransaction(async (trx) => {
      const batch = await batchPaying(trx, tx.id);
      await recordPaymentsIn(trx, t.deps, [report(tx.total_amount)]);
      await batch.flush(trx);
    });
    await expect(raced).rejects.toBeInstanceOf(ReportsRaced);
    // The same when only its status changed (cancelled meanwhile, nothing paid): paying it now would
    // have to be judged late, which the batch did not.
    const cancelled = t.deps.db.runInTransaction(async (trx) => {
      const batch = await batchPaying(trx, tx.id);
      await trx.updateTable('transactions').set({ status: 'cancelled' }).where('id', '=', tx.id).execute();
      await batch.flush(trx);
    });
    await expect(cancelled).rejects.toBeInstanceOf(ReportsRaced);
    // Nothing of those units stayed: the transaction is still open.
    expect((await readTransaction(t.deps.db, tx.id))?.status).toBe('pending');
    // Through the queue: two reports of the same total in one turn, and a third whose batch must not
    // double-pay: each ends as one by one would.
    const results = await Promise.all([
      recordPayment(t.deps, report(tx.total_amount)),
      recordPayment(t.deps, report(tx.total_amount)),
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['matched', 'unmatched']);
    expect(t.deps.state.payments.stats.failed).toBe(failedBefore);
    expect((await readTransaction(t.deps.db, tx.id))?.payment_id).toBe(results[0]!.payment.id);
  });

  it('a batch that fails as a whole is recorded again report by report: one bad report fails alone', async () => {
    const txs = await Promise.all([newTransaction(), newTransaction()]);
    // A real failure inside the database: a trigger refuses one payment's row.
    if (onPostgres) {
      await sql`create or replace function qg_refuse_payment() returns trigger language plpgsql as $$ begin raise exception 'refused by test'; end $$`.execute(
        t.deps.db,
      );
      await sql`create trigger qg_refuse before insert on payments for each row when (new.source_payment_id = 'refused') execute function qg_refuse_payment()`.execute(
        t.deps.db,
      );
    } else {
      await sql`create trigger qg_refuse before insert on payments when new.source_payment_id = 'refused' begin select raise(abort, 'refused by test'); end`.execute(
        t.deps.db,
      );
    }
    const failedBefore = t.deps.state.payments.stats.failed;
    try {
      const results = await Promise.allSettled([
        recordPayment(t.deps, report(txs[0]!.total_amount)),
        recordPayment(t.deps, { ...report(5), sourcePaymentId: 'refused' }),
        recordPayment(t.deps, report(txs[1]!.total_amount)),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(t.deps.state.payments.stats.failed).toBe(failedBefore + 1);
      for (const tx of txs) expect((await readTransaction(t.deps.db, tx.id))?.status).toBe('paid');
    } finally {
      // The test schemas are reused by later runs (test/helpers): nothing of this test may stay behind.
      await sql`drop trigger qg_refuse${sql.raw(onPostgres ? ' on payments' : '')}`.execute(t.deps.db);
      if (onPostgres) await sql`drop function qg_refuse_payment()`.execute(t.deps.db);
    }
  });
  it('a batch that pays transactions announces each once, in order, when it commits (PostgreSQL: in the statement that writes its events)', async () => {
    const txs = await Promise.all([newTransaction(), newTransaction(), newTransaction()]);
    const ids = txs.map((tx) => tx.id);
    const heard: string[] = [];
    let allHeard!: () => void;
    const done = new Promise<void>((resolve) => (allHeard = resolve));
    const hear = (trxid: string | null) => {
      if (trxid === null || !ids.includes(trxid)) return;
      heard.push(trxid);
      if (heard.length === ids.length) allHeard();
    };
    let stop: () => Promise<void> | void;
    if (onPostgres) {
      // As another instance would: its own connection, hearing NOTIFY once LISTEN is in place.
      await new Promise<void>((listening) => {
        stop = listenForStatusNotifications(t.databaseUrl, t.deps.logger, hear, listening);
      });
    } else {
      stop = t.deps.state.statusBus.onAnyChange(hear);
    }
    try {
      const statements: string[] = [];
      const results = await t.deps.db.runInTransaction(async (trx) => {
        const unhook = hookStatements(trx, { ran: (text) => statements.push(text) });
        try {
          return await recordPaymentsIn(
            trx,
            t.deps,
            txs.map((tx) => report(tx.total_amount)),
          );
        } finally {
          unhook();
        }
      });
      expect(results.map((r) => r.outcome)).toEqual(['matched', 'matched', 'matched']);
      await done;
      expect(heard).toEqual(ids);
      const notifying = statements.filter((text) => text.includes('pg_notify'));
      if (onPostgres) {
        // One statement inserts the events and notifies; no NOTIFY of its own.
        expect(notifying).toHaveLength(1);
        expect(notifying[0]).toMatch(/^with "e" as \(insert into "events"/);
      } else {
        expect(notifying).toEqual([]);
      }
      const events = await t.deps.db
        .selectFrom('events')
        .select('transaction_id')
        .where('type', '=', 'transaction.paid')
        .where('transaction_id', 'in', ids)
        .execute();
      expect(events.map((e) => e.transaction_id).sort()).toEqual([...ids].sort());
    } finally {
      await stop!();
    }
  });
});
