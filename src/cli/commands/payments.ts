import { Option, type Command } from 'commander';
import { AppError } from '../../domain/errors.js';
import { formatRupiah, parseAmount } from '../../domain/money.js';
import { isDoublePayment, presentPayment, type PaymentView } from '../../domain/payment.js';
import { presentTransaction } from '../../domain/transaction.js';
import { assignPayment } from '../../services/payments/assign-payment.js';
import { confirmPayment } from '../../services/payments/confirm-payment.js';
import { listPayments } from '../../services/payments/list-payments.js';
import type { PaymentStatus, PaymentsTable } from '../../storage/schema.js';
import { refundDoublePayment } from '../../services/refunds/refund-double-payment.js';
import { isoTime } from '../../domain/iso-time.js';
import { emit, emitItems } from '../output.js';
import type { CliContext } from '../context.js';

/** payments list|assign|confirm (reported payments). */
export function registerPaymentCommands(program: Command, ctx: CliContext): void {
  const { io, json } = ctx;
  const payments = program
    .command('payments')
    .description('reported payments: list, assign unmatched ones, confirm by hand');

  payments
    .command('list')
    .description('list reported payments, newest first')
    .addOption(new Option('--status <status>', 'matched or unmatched').choices(['matched', 'unmatched']))
    .option(
      '--double',
      'only double payments: unmatched because the transaction they pay was paid already (refunded or not)',
    )
    .option('--merchant <id>', 'only this merchant')
    .option('--limit <n>', 'at most this many, newest first (default 100)')
    .option('--json', 'print JSON')
    .action(async (opts: { status?: PaymentStatus; double?: boolean; merchant?: string; limit?: string }) => {
      const limit = opts.limit === undefined ? 100 : Number(opts.limit);
      if (opts.limit !== undefined && (!/^[0-9]{1,4}$/.test(opts.limit) || limit < 1 || limit > 1000)) {
        throw new AppError('invalid_parameter', '--limit must be 1 to 1000', { param: 'limit' });
      }
      // Double payments are unmatched ones: with --status matched the list could only be empty.
      if (opts.double && opts.status === 'matched') {
        throw new AppError(
          'invalid_parameter',
          '--double lists unmatched payments; it does not go with --status matched',
          { param: 'double' },
        );
      }
      const rows = await ctx.withDeps((deps) =>
        listPayments(deps, {
          ...(opts.status ? { status: opts.status } : {}),
          ...(opts.double ? { double: true } : {}),
          ...(opts.merchant ? { merchantId: opts.merchant } : {}),
          limit,
        }),
      );
      emitItems(io, json, rows.map(listedPayment), 'no payments', paymentLine);
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
        const amount =
          opts.amount === undefined ? null : parseAmount(opts.amount, { min: 1, max: deps.config.amountMax });
        const result = await confirmPayment(deps, { trxid, reference: opts.reference, amount, actor });
        const tx = result.transaction;
        return {
          status: result.outcome,
          reason: result.reason,
          payment: presentPayment(result.payment),
          transaction:
            tx === null
              ? null
              : presentTransaction(
                  tx,
                  result.outcome === 'matched' ? result.payment : null,
                  deps.now(),
                  deps.config.publicBaseUrl,
                ),
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
    .option(
      '--accept-difference',
      "pay the transaction even though the payment's amount (with what it received before) differs from its total (it is then underpaid or overpaid)",
    )
    .option(
      '--partial',
      'when the payment (with what it received before) is short of the total, keep the transaction open for the rest',
    )
    .option('--json', 'print JSON')
    .action(async (paymentId: string, trxid: string, opts: { acceptDifference?: boolean; partial?: boolean }) => {
      const actor = ctx.actor();
      const view = await ctx.withDeps(async (deps) => {
        const { payment, transaction } = await assignPayment(deps, {
          paymentId,
          trxid,
          actor,
          acceptDifference: opts.acceptDifference === true,
          keepOpen: opts.partial === true,
        });
        const paidBy = transaction.status === 'paid' ? payment : null;
        return {
          payment: presentPayment(payment),
          transaction: presentTransaction(transaction, paidBy, deps.now(), deps.config.publicBaseUrl),
        };
      });
      emit(io, json, view, () => {
        const { underpaid, overpaid } = view.transaction;
        const head = `${view.payment.id} now pays ${trxid} (${formatRupiah(view.payment.amount)})`;
        if (view.transaction.status !== 'paid') {
          return `${head}; kept ${view.transaction.status} with ${formatRupiah(view.transaction.amount_paid)} received, ${formatRupiah(underpaid)} still due`;
        }
        const difference =
          underpaid > 0
            ? `, underpaid by ${formatRupiah(underpaid)}`
            : overpaid > 0
              ? `, overpaid by ${formatRupiah(overpaid)}`
              : '';
        return `${head}${view.transaction.paid_late ? ', late' : ''}${difference}`;
      });
    });

  payments
    .command('refund <payment_id>')
    .description(
      'record that a double payment (one for a transaction already paid) was paid back to the payer; audited',
    )
    .requiredOption('--reason <text>', 'why it was paid back')
    .option('--reference <ref>', 'the reference of the transfer that paid it back')
    .option('--json', 'print JSON')
    .action(async (paymentId: string, opts: { reason: string; reference?: string }) => {
      const actor = ctx.actor();
      const view = await ctx.withDeps(async (deps) => {
        const { payment, refund } = await refundDoublePayment(deps, {
          paymentId,
          reason: opts.reason,
          reference: opts.reference ?? null,
          actor,
        });
        return {
          payment: { ...presentPayment(payment), double: true, refunded: true },
          refund: {
            id: refund.id,
            payment_id: paymentId,
            trxid: refund.transaction_id,
            amount: refund.amount,
            status: refund.status,
            recorded: refund.recorded === 1,
            reason: refund.reason,
            reference: refund.reference,
            created_at: isoTime(refund.created_at),
          },
        };
      });
      emit(
        io,
        json,
        view,
        () =>
          `${paymentId} (${formatRupiah(view.refund.amount)}, a double payment of ${view.refund.trxid}) recorded as refunded: ${view.refund.id}`,
      );
    });
}

/** A listed payment: as presented everywhere, and whether it is a double payment and was refunded. */
type ListedPayment = PaymentView & {
  double: boolean;
  compared_trxid: string | null;
  refunded: boolean;
  refund_id: string | null;
};

function listedPayment(p: PaymentsTable & { refund_id: string | null }): ListedPayment {
  return {
    ...presentPayment(p),
    double: isDoublePayment(p),
    compared_trxid: p.compared_transaction_id,
    refunded: p.refund_id !== null,
    refund_id: p.refund_id,
  };
}

function paymentLine(p: ListedPayment): string {
  const who = [p.issuer, p.payer_name, p.reference].filter((x) => x !== null).join(' / ');
  const state =
    p.status === 'matched'
      ? `-> ${p.trxid ?? '?'}`
      : p.double
        ? `double payment of ${p.compared_trxid ?? '?'}${p.refunded ? ', refunded' : ''}`
        : `unmatched (${p.reason ?? '-'})`;
  return `${p.id}  ${p.paid_at}  ${formatRupiah(p.amount)}  ${p.mode}  ${p.source}  ${state}${who ? `  ${who}` : ''}`;
}
