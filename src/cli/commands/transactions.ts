import { Option, type Command } from 'commander';
import { AppError } from '../../domain/errors.js';
import { formatRupiah } from '../../domain/money.js';
import { presentTransaction, type TransactionView } from '../../domain/transaction.js';
import { acceptReceived } from '../../services/payments/accept-received.js';
import { cancelTransaction } from '../../services/transactions/cancel-transaction.js';
import { getTransactionById } from '../../services/transactions/get-transaction-by-id.js';
import { paymentOf } from '../../services/transactions/payment-of.js';
import { refundTransaction } from '../../services/refunds/refund-transaction.js';
import { refundsOf } from '../../services/refunds/refunds-of.js';
import { parseRefundAmount, parseRefundReason, parseRefundReference } from '../../domain/refund.js';
import { listTransactions } from '../../services/transactions/list-transactions.js';
import type { Mode, TransactionStatus } from '../../storage/schema.js';
import { parseTrxid } from '../../http/params.js';
import { emit, emitItems } from '../output.js';
import type { CliContext } from '../context.js';

// Each view carries the merchant, which the API leaves out (a key sees one merchant) but an operator needs.
type OperatorView = TransactionView & { merchant_id: string };

/** transactions list|show|cancel|accept|refund, for operators (any merchant, either mode). */
export function registerTransactionCommands(program: Command, ctx: CliContext): void {
  const { io, json } = ctx;
  const transactions = program.command('transactions').description('transactions: list, show, cancel, accept, refund');

  transactions
    .command('list')
    .description('list transactions of every merchant, newest first')
    .option('--merchant <id>', 'only this merchant')
    .addOption(
      new Option('--status <status>', 'only this status, as a reader sees it').choices([
        'pending',
        'paid',
        'expired',
        'cancelled',
      ]),
    )
    .addOption(new Option('--mode <mode>', 'only test or live transactions').choices(['test', 'live']))
    .option('--limit <n>', 'at most this many, newest first (default 50)')
    .option('--json', 'print JSON')
    .action(async (opts: { merchant?: string; status?: TransactionStatus; mode?: Mode; limit?: string }) => {
      const limit = opts.limit === undefined ? 50 : Number(opts.limit);
      if (opts.limit !== undefined && (!/^[0-9]{1,4}$/.test(opts.limit) || limit < 1 || limit > 1000)) {
        throw new AppError('invalid_parameter', '--limit must be 1 to 1000', { param: 'limit' });
      }
      const items = await ctx.withDeps(async (deps) => {
        const page = await listTransactions(deps, {
          merchantId: opts.merchant ?? null,
          mode: opts.mode ?? null,
          status: opts.status ?? null,
          limit,
          cursor: null,
        });
        return page.items.map((i) =>
          view(
            i.transaction.merchant_id,
            presentTransaction(i.transaction, i.payment, deps.now(), deps.config.publicBaseUrl, i.refunds),
          ),
        );
      });
      emitItems(io, json, items, 'no transactions', line);
    });

  transactions
    .command('show <trxid>')
    .description('show one transaction, its payment and checkout URL')
    .option('--json', 'print JSON')
    .action(async (trxid: string) => {
      const id = parseTrxid(trxid, true)!;
      const shown = await ctx.withDeps(async (deps) => {
        const tx = await getTransactionById(deps, id);
        return view(
          tx.merchant_id,
          presentTransaction(
            tx,
            await paymentOf(deps, tx),
            deps.now(),
            deps.config.publicBaseUrl,
            await refundsOf(deps, tx),
          ),
        );
      });
      emit(io, json, shown, () => details(shown));
    });

  transactions
    .command('cancel <trxid>')
    .description('cancel a pending transaction (as the API does); audited')
    .option('--json', 'print JSON')
    .action(async (trxid: string) => {
      const id = parseTrxid(trxid, true)!;
      const actor = ctx.actor();
      const cancelled = await ctx.withDeps(async (deps) => {
        const { merchant_id: merchantId } = await getTransactionById(deps, id);
        return view(merchantId, await cancelTransaction(deps, { trxid: id, owner: null, actor }));
      });
      emit(
        io,
        json,
        cancelled,
        () => `${cancelled.trxid} is ${cancelled.status} (cancelled at ${cancelled.cancelled_at ?? '-'})`,
      );
    });

  transactions
    .command('accept <trxid>')
    .description(
      'close a transaction kept open after a part payment: paid with what it received, the rest recorded as underpaid; audited',
    )
    .option('--json', 'print JSON')
    .action(async (trxid: string) => {
      const id = parseTrxid(trxid, true)!;
      const actor = ctx.actor();
      const accepted = await ctx.withDeps(async (deps) => {
        const { transaction, payment } = await acceptReceived(deps, { trxid: id, actor });
        return view(
          transaction.merchant_id,
          presentTransaction(transaction, payment, deps.now(), deps.config.publicBaseUrl),
        );
      });
      emit(
        io,
        json,
        accepted,
        () =>
          `${accepted.trxid} is paid with ${formatRupiah(accepted.amount_paid)} received of ${formatRupiah(accepted.total_amount)}; underpaid ${formatRupiah(accepted.underpaid)}`,
      );
    });

  transactions
    .command('refund <trxid>')
    .description('refund a paid transaction, wholly or in part (as the API does); audited')
    .option('--amount <n>', 'whole rupiah (default: everything that remains)')
    .option('--reason <text>', 'why (required)')
    .option('--reference <ref>', 'a static-QRIS code: your own reference of the money you paid back')
    .option('--json', 'print JSON')
    .action(async (trxid: string, opts: { amount?: string; reason?: string; reference?: string }) => {
      const id = parseTrxid(trxid, true)!;
      const amount = parseRefundAmount(opts.amount);
      const reason = parseRefundReason(opts.reason);
      const reference = parseRefundReference(opts.reference);
      const actor = ctx.actor();
      const refunded = await ctx.withDeps(async (deps) => {
        const result = await refundTransaction(deps, {
          trxid: id,
          owner: null,
          amount,
          reason,
          reference,
          idempotency: null,
          actor,
        });
        return { ...result.transaction, merchant_id: (await getTransactionById(deps, id)).merchant_id };
      });
      emit(io, json, refunded, () => {
        const r = refunded.refund;
        return `${r.id}: ${formatRupiah(r.amount)} of ${refunded.trxid} ${r.status}; refunded so far ${formatRupiah(refunded.refunded_amount)}\n${r.note}`;
      });
    });
}

function view(merchantId: string, tx: TransactionView): OperatorView {
  return { ...tx, merchant_id: merchantId };
}

function line(tx: OperatorView): string {
  const late = tx.paid_late ? ' (late)' : '';
  return `${tx.trxid}  ${tx.created_at}  ${tx.status}${late}  ${formatRupiah(tx.total_amount)}  ${tx.mode}  ${tx.merchant_id}${tx.ref ? `  ref ${tx.ref}` : ''}`;
}

function details(tx: OperatorView): string {
  const rows: Array<[string, string | null]> = [
    ['trxid', tx.trxid],
    ['merchant', tx.merchant_id],
    ['mode', tx.mode],
    ['status', `${tx.status}${tx.paid_late ? ' (paid late)' : ''}`],
    [
      'amount',
      `${formatRupiah(tx.amount)} ${tx.unique_code < 0 ? '-' : '+'} unique code ${Math.abs(tx.unique_code)} = ${formatRupiah(tx.total_amount)}`,
    ],
    ['ref', tx.ref],
    ['email', tx.email],
    ['created', tx.created_at],
    ['expires', tx.expires_at],
    ['cancelled', tx.cancelled_at],
    ['paid', tx.paid_at],
    ['refunded', tx.refunded_amount > 0 ? formatRupiah(tx.refunded_amount) : null],
    ...tx.refunds.map((r): [string, string] => [
      'refund',
      `${r.id} ${formatRupiah(r.amount)} ${r.status}${r.recorded ? ' (recorded)' : ''}: ${r.reason}`,
    ]),
    [
      'payment',
      tx.payment
        ? `${tx.payment.id} via ${tx.payment.source}${tx.payment.reference ? `, ref ${tx.payment.reference}` : ''}`
        : null,
    ],
    ['checkout', tx.checkout_url],
  ];
  return rows.map(([k, v]) => `${k.padEnd(10)}${v ?? '-'}`).join('\n');
}
