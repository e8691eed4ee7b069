// A transaction's status as the console's pages show it; its words are the shared ones (presentation/shared-texts.ts).
import { html, type SafeHtml } from '../../../domain/html.js';
import type { TransactionStatus } from '../../../domain/records.js';
import type { Lang } from '../../../presentation/messages.js';
import type { TransactionRefundStatus } from '../../../domain/refund.js';
import { paidLateText, refundStatusText, statusText } from '../../../presentation/shared-texts.js';

/**
 * A transaction's status as a badge (as a reader sees it), with "paid late" beside it when so, and a
 * second badge when its refunds gave back part or all of what it received (its status stays paid).
 */
export function statusBadge(
  status: TransactionStatus,
  paidLate: boolean,
  lang: Lang,
  refund: TransactionRefundStatus = 'none',
): SafeHtml {
  return html`<span class="badge ${status}">${statusText(status, lang)}</span>${paidLate ? html` <span class="muted">(${paidLateText(lang)})</span>` : ''}${
    refund === 'none' ? '' : html` <span class="badge refunded">${refundStatusText(refund, lang)}</span>`
  }`;
}
