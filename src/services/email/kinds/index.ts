// The kinds of e-mail the outbox sends, by the part of a row's kind before any `:`. A new kind is a
// file beside these and one line here (and its name in EmailKind, storage/schema.ts: the mapped type
// makes the compiler refuse one without the other).
import type { EmailKind } from '../../../storage/schema.js';
import { dailyReportMail } from './daily-report.js';
import { invoiceMail } from './invoice.js';
import type { MailKind } from './mail-kind.js';
import { oneRefundNoticeMail } from './one-refund-notice.js';
import { receiptMail } from './receipt.js';
import { refundNoticeMail } from './refund-notice.js';

type KindName<K extends string> = K extends `${infer Name}:${string}` ? Name : K;

const MAIL_KINDS: Record<KindName<EmailKind>, MailKind> = {
  invoice: invoiceMail,
  receipt: receiptMail,
  refunds: refundNoticeMail,
  refund: oneRefundNoticeMail,
  daily_report: dailyReportMail,
};

/** The handler of a row's kind. */
export function mailKindOf(kind: EmailKind): MailKind {
  return MAIL_KINDS[kind.split(':')[0] as KindName<EmailKind>];
}
