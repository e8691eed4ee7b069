import { readRefund } from '../../../storage/queries/refunds.js';
import type { MailKind } from './mail-kind.js';
import { composeTransactionMail } from './transaction-mail.js';

/** `refund:<id>`: the notice of one refund, as queued before notices gathered refunds (migration 020); sent once it succeeded. */
export const oneRefundNoticeMail: MailKind = {
  async compose(deps, row) {
    const refund = await readRefund(deps.db, row.kind.slice('refund:'.length));
    if (refund?.status !== 'succeeded') return { skipped: 'refund_not_succeeded' };
    return composeTransactionMail(deps, row, { template: 'refund', refunds: [refund] });
  },
};
