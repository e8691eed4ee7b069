import type { MailKind } from './mail-kind.js';
import { composeTransactionMail } from './transaction-mail.js';

/** The receipt of a paid transaction: always sent. */
export const receiptMail: MailKind = {
  compose: (deps, row) => composeTransactionMail(deps, row, { template: 'receipt' }),
};
