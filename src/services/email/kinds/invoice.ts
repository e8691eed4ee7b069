import type { MailKind } from './mail-kind.js';
import { composeTransactionMail } from './transaction-mail.js';

/** The invoice asks the payer to pay: once the transaction is paid, expired or cancelled it is not sent late. */
export const invoiceMail: MailKind = {
  compose: (deps, row) =>
    composeTransactionMail(deps, row, { template: 'invoice', sendWhile: (status) => status === 'pending' }),
};
