import { Option, type Command } from 'commander';
import { AppError } from '../../domain/errors.js';
import { formatRupiah, parseAmount } from '../../domain/money.js';
import { presentPayment, type PaymentView } from '../../domain/payment.js';
import { presentTransaction } from '../../domain/transaction.js';
import { assignPayment } from '../../services/payments/assign-payment.js';
import { confirmPayment } from '../../services/payments/confirm-payment.js';
import { listPayments } from '../../services/payments/list-payments.js';
import type { PaymentStatus } from '../../storage/schema.js';
import { emit, emitItems } from '../output.js';
import type { CliContext } from '../context.js';

/** payments list|assign|confirm (reported payments). */
export function registerPaymentCommands(program: Command, ctx: CliContext): void {
  const { io, json } = ctx;
  const payments = program.command('payments').description('reported payments: list, assign unmatched ones, confirm by hand');

  payments
    .command('list')
    .description('list reported payments, newest first')
    .addOption(new Option('--status <status>', 'matched or unmatched').choices(['matched', 'unmatched']))
    .option('--merchant <id>', 'only this merchant')
    .option('--limit <n>', 'at most this many, newest first (default 100)')
    .option('--json', 'print JSON')
    .action(async (opts: { status?: PaymentStatus; merchant?: string; limit?: string }) => {
      const limit = opts.limit === undefined ? 100 : Number(opts.limit);
      if (opts.limit !== undefined && (!/^[0-9]{1,4}$/.test(opts.limit) || limit < 1 || limit > 1000)) {
        throw new AppError('invalid_parameter', '--limit must be 1 to 1000', { param: 'limit' });
      }
      const rows = await ctx.withDeps((deps) =>
        listPayments(deps, { ...(opts.status ? { status: opts.status } : {}), ...(opts.merchant ? { merchantId: opts.merchant } : {}), limit }),
      );
      emitItems(io, json, rows.map(presentPayment), 'no payments', paymentLine);
    });

  payments
    .command('confirm <trxid>')
    .description("record a payment you saw yourself (bank statement, wallet app) for a transaction's total; audited")
    .requiredOption('--reference <ref>', "the payment's bank or wallet reference")
    .option('--amount <rupiah>', 'the amount received, when not the total')
    .option('--json', 'print JSON')
    .action(async (trxid: string, opts: { reference: string; amount?: string }) => {
      const actor = ctx.actor();
      const view = await ctx.withDeps(async (deps) => {
        const amount = opts.amount === undefined ? null : parseAmount(opts.amount, { min: 1, max: deps.config.amountMax });
        const result = await confirmPayment(deps, { trxid, reference: opts.reference, amount, actor });
        const tx = result.transaction;
        return {
          status: result.outcome,
          reason: result.reason,
          payment: presentPayment(result.payment),
          transaction: tx === null ? null : presentTransaction(tx, result.outcome === 'matched' ? result.payment : null, deps.now(), deps.config.publicBaseUrl),
        };
      });
      emit(io, json, view, () =>
        view.status === 'matched'
          ? `${trxid} is paid${view.transaction?.paid_late ? ' (late)' : ''} by ${view.payment.id}`
          : `recorded ${view.payment.id} as unmatched (${view.reason ?? 'unknown'}); ${trxid} is not paid`,
      );
    });

  payments
    .command('assign <payment_id> <trxid>')
    .description('bind an unmatched payment to the transaction it pays; audited')
    .option('--accept-difference', "pay the transaction even though the payment's amount differs from its total (it is then underpaid or overpaid)")
    .option('--json', 'print JSON')
    .action(async (paymentId: string, trxid: string, opts: { acceptDifference?: boolean }) => {
      const actor = ctx.actor();
      const view = await ctx.withDeps(async (deps) => {
        const { payment, transaction } = await assignPayment(deps, { paymentId, trxid, actor, acceptDifference: opts.acceptDifference === true });
        return { payment: presentPayment(payment), transaction: presentTransaction(transaction, payment, deps.now(), deps.config.publicBaseUrl) };
      });
      emit(io, json, view, () => {
        const { underpaid, overpaid } = view.transaction;
        const difference = underpaid > 0 ? `, underpaid by ${formatRupiah(underpaid)}` : overpaid > 0 ? `, overpaid by ${formatRupiah(overpaid)}` : '';
        return `${view.payment.id} now pays ${trxid} (${formatRupiah(view.payment.amount)})${view.transaction.paid_late ? ', late' : ''}${difference}`;
      });
    });
}

function paymentLine(p: PaymentView): string {
  const who = [p.issuer, p.payer_name, p.reference].filter((x) => x !== null).join(' / ');
  const state = p.status === 'matched' ? `-> ${p.trxid ?? '?'}` : `unmatched (${p.reason ?? '-'})`;
  return `${p.id}  ${p.paid_at}  ${formatRupiah(p.amount)}  ${p.mode}  ${p.source}  ${state}${who ? `  ${who}` : ''}`;
}
