import { beginRefundNotice } from '../begin-refund-notice.js';
import type { MailKind } from './mail-kind.js';
import { composeTransactionMail } from './transaction-mail.js';

/**
 * `refunds:<due>`: a notice to the payer of the succeeded refunds it gathered (at most one a window per
 * transaction: services/refunds/announce-refund.ts); none left to tell of, it is skipped.
 */
export const refundNoticeMail: MailKind = {
  async compose(deps, row) {
    const refunds = await beginRefundNotice(deps, row.transaction_id, Number(row.kind.slice('refunds:'.length)));
    if (refunds.length === 0) return { skipped: 'refund_not_succeeded' };
    return composeTransactionMail(deps, row, { template: 'refund', refunds });
  },
};
