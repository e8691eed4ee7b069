import { payerMerchantName } from '../../../domain/merchant-name.js';
import type { TransactionStatus } from '../../../domain/records.js';
import { effectiveStatus, transactionUrls } from '../../../domain/transaction.js';
import { type MailKind as TemplateKind, renderMail } from '../../../mail/templates.js';
import { transactionWithMerchantName } from '../../../storage/queries/emails.js';
import type { EmailsTable, RefundsTable } from '../../../storage/schema.js';
import type { Deps } from '../../deps.js';
import { paymentOf } from '../../transactions/payment-of.js';
import type { Composed } from './mail-kind.js';

/**
 * A mail to a transaction's payer, rendered from the transaction as it is now. `sendWhile` says
 * whether its status still calls for it (an invoice is no longer sent once paid, expired or cancelled).
 */
export async function composeTransactionMail(
  deps: Deps,
  row: EmailsTable,
  mail: { template: TemplateKind; refunds?: RefundsTable[]; sendWhile?: (status: TransactionStatus) => boolean },
): Promise<Composed> {
  const found = await transactionWithMerchantName(deps.db, row.transaction_id);
  if (!found) return { failed: 'transaction_not_found' };
  const { merchant_display_name: name, merchant_qris_name: qrisName, ...transaction } = found;
  const status = effectiveStatus(transaction, deps.now());
  if (mail.sendWhile && !mail.sendWhile(status)) return { skipped: `transaction_${status}` };
  const payment = await paymentOf(deps, transaction);
  return {
    mail: renderMail({
      kind: mail.template,
      refunds: mail.refunds ?? [],
      // The name the checkout page and the payer's bank app show (the QRIS's), so the mail names the same merchant.
      merchantName: payerMerchantName({ qrisName, name }),
      transaction,
      payment,
      checkoutUrl: transactionUrls(deps.config.publicBaseUrl, transaction.id).checkout,
    }),
  };
}
