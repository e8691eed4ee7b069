import { html, type SafeHtml } from '../../../domain/html.js';
import type { TransactionStatus } from '../../../domain/records.js';
import { defineMessages, translator, type Lang } from '../../../presentation/messages.js';

const words = defineMessages(
  { pending: 'Pending', paid: 'Paid', expired: 'Expired', cancelled: 'Cancelled', late: 'paid late' },
  { pending: 'Menunggu', paid: 'Dibayar', expired: 'Kedaluwarsa', cancelled: 'Dibatalkan', late: 'dibayar terlambat' },
);

/** A status's name in the page's language. */
export function statusName(status: TransactionStatus, lang: Lang): string {
  return translator(words, lang)(status);
}

/** A transaction's status as a badge (as a reader sees it), with "paid late" beside it when so. */
export function statusBadge(status: TransactionStatus, paidLate: boolean, lang: Lang): SafeHtml {
  const t = translator(words, lang);
  return html`<span class="badge ${status}">${t(status)}</span>${paidLate ? html` <span class="muted">(${t('late')})</span>` : ''}`;
}
