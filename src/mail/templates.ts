// The payer's invoice and receipt. Each message is described once as blocks per language and rendered
// twice, as text and as HTML, so the two parts cannot drift apart. Bahasa Indonesia comes first, as on
// the checkout page; English follows for visitors. The words are in templates.words.ts.
import { formatRupiah } from '../domain/money.js';
import type { PaymentsTable, RefundsTable, TransactionsTable } from '../storage/schema.js';
import { html, rawHtml, type SafeHtml } from '../domain/html.js';
import { formatTime } from '../presentation/format.js';
import { translator, type Lang } from '../presentation/messages.js';
import { payerText } from '../presentation/shared-texts.js';
import { cachedQrPng } from '../qr/qr-png.js';
import type { InlineImage } from './sender.js';
import { words } from './templates.words.js';

export type MailKind = 'invoice' | 'receipt' | 'refund';

export interface MailInput {
  kind: MailKind;
  /** The merchant's name as the operator entered it: untrusted text, escaped everywhere. */
  merchantName: string;
  transaction: TransactionsTable;
  payment: PaymentsTable | null;
  checkoutUrl: string;
  /** The succeeded refunds a refund notice tells of, oldest first (kind 'refund' only): one, or a window's. */
  refunds?: readonly RefundsTable[];
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
  attachments: InlineImage[];
}

type Block =
  | { kind: 'heading'; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'total'; label: string; value: string }
  | { kind: 'fields'; rows: Array<[label: string, value: string]> }
  | { kind: 'qr'; cid: string; alt: string; textHint: string }
  | { kind: 'link'; label: string; href: string }
  | { kind: 'list'; label: string; items: string[] }
  | { kind: 'note'; text: string };

interface Section {
  lang: Lang;
  blocks: Block[];
}

/** Control characters would break a header line or a text layout; names are one line. */
const oneLine = (text: string): string =>
  text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** The mail's sections, in this order: Bahasa Indonesia first, as on the checkout page. */
const MAIL_LANGS: readonly Lang[] = ['id', 'en'];

export function renderMail(input: MailInput): RenderedMail {
  const merchant = oneLine(input.merchantName);
  const tx = input.transaction;
  const total = formatRupiah(tx.total_amount);
  // The subject names the mail in both languages, Bahasa Indonesia first.
  const id = translator(words, 'id');
  const en = translator(words, 'en');
  const sandbox = tx.mode === 'test' ? `${id('sandboxTag')} ` : '';
  if (input.kind === 'invoice') {
    const cid = `qr-${tx.id}@qris-gateway`;
    return finish(
      `${sandbox}${id('invoiceSubject')} / ${en('invoiceSubject')} ${total} – ${merchant}`,
      invoiceSections(merchant, tx, input.checkoutUrl, cid),
      [{ filename: `qris-${tx.id}.png`, contentType: 'image/png', cid, content: cachedQrPng(tx.qris) }],
    );
  }
  if (input.kind === 'refund') {
    const refunds = input.refunds ?? [];
    const amount = formatRupiah(sumOf(refunds));
    return finish(
      `${sandbox}${id('refundSubject')} / ${en('refundSubject')} ${amount} – ${merchant}`,
      refundSections(merchant, tx, refunds, input.checkoutUrl),
      [],
    );
  }
  return finish(
    `${sandbox}${id('receiptSubject')} / ${en('receiptSubject')} ${total} – ${merchant}`,
    receiptSections(merchant, tx, input.payment, input.checkoutUrl),
    [],
  );
}

function invoiceSections(merchant: string, tx: TransactionsTable, checkoutUrl: string, cid: string): Section[] {
  const total = formatRupiah(tx.total_amount);
  // The unique code is what tells this payment apart from others of the same amount, so the payer
  // sees exactly how the total is made up (acquirer-issued codes have none).
  // A subtracted code (negative) is said as the discount it is.
  const withCode = (lang: Lang) =>
    tx.unique_code > 0
      ? `${total} (${formatRupiah(tx.amount)} + ${payerText('uniqueCode', lang)} ${tx.unique_code})`
      : tx.unique_code < 0
        ? `${total} (${formatRupiah(tx.amount)} ${payerText('codeSubtracted', lang)} ${-tx.unique_code})`
        : total;
  // The QR image is shown once, in the first section; the others say it is attached.
  const section = (lang: Lang, first: boolean): Section => {
    const t = translator(words, lang);
    const rows: Array<[string, string]> = [
      [payerText('validUntil', lang), formatTime(tx.expires_at, lang)],
      [payerText('transactionId', lang), tx.id],
    ];
    if (tx.ref !== null) rows.push([t('order'), tx.ref]);
    return {
      lang,
      blocks: [
        { kind: 'heading', text: t('invoiceHeading', { merchant }) },
        { kind: 'total', label: payerText('amountToPay', lang), value: withCode(lang) },
        { kind: 'paragraph', text: t('payExactly', { total }) },
        ...(first
          ? [{ kind: 'qr' as const, cid, alt: payerText('qrCodeFor', lang, { total }), textHint: t('qrAttached') }]
          : []),
        { kind: 'paragraph', text: t('scan') },
        { kind: 'fields', rows },
        { kind: 'link', label: t('openCheckout'), href: checkoutUrl },
        ...sandboxNote(tx, lang),
      ],
    };
  };
  return MAIL_LANGS.map((lang, i) => section(lang, i === 0));
}

// The receipt has one layout in both languages; only the words differ.
function receiptSections(
  merchant: string,
  tx: TransactionsTable,
  payment: PaymentsTable | null,
  checkoutUrl: string,
): Section[] {
  const paid = formatRupiah(payment?.amount ?? tx.total_amount);
  const paidAt = tx.paid_at ?? payment?.paid_at ?? null;
  const section = (lang: Lang): Section => {
    const t = translator(words, lang);
    const rows: Array<[string, string]> = [[t('amountPaid'), paid]];
    if (paidAt !== null) rows.push([t('paidAt'), formatTime(paidAt, lang)]);
    if (payment?.issuer) rows.push([t('paidWith'), payment.issuer]);
    if (payment?.reference) rows.push([t('paymentReference'), payment.reference]);
    rows.push([payerText('transactionId', lang), tx.id]);
    if (tx.ref !== null) rows.push([t('order'), tx.ref]);
    return {
      lang,
      blocks: [
        { kind: 'heading', text: t('receiptHeading') },
        { kind: 'paragraph', text: t('thanks', { merchant }) },
        { kind: 'fields', rows },
        ...(tx.paid_late === 1 ? [{ kind: 'note' as const, text: t('late', { merchant }) }] : []),
        { kind: 'link', label: t('viewTransaction'), href: checkoutUrl },
        ...sandboxNote(tx, lang),
      ],
    };
  };
  return MAIL_LANGS.map(section);
}

// A refund notice says plainly whether money moved through the payment service (an acquirer's refund)
// or the merchant only recorded paying it back itself (a code made from its static QRIS). It tells of one
// refund, or of the refunds of one window (at most one notice a window per transaction), summed up, each
// listed up to REFUND_LINES_MAX, and what has been refunded in all when that is more.
const REFUND_LINES_MAX = 10;
const sumOf = (refunds: readonly RefundsTable[]): number => refunds.reduce((sum, r) => sum + r.amount, 0);

function refundSections(
  merchant: string,
  tx: TransactionsTable,
  refunds: readonly RefundsTable[],
  checkoutUrl: string,
): Section[] {
  const sum = sumOf(refunds);
  const amount = formatRupiah(sum);
  const recorded = refunds.every((r) => r.recorded === 1);
  const section = (lang: Lang): Section => {
    const t = translator(words, lang);
    const rows: Array<[string, string]> = [];
    if (refunds.length === 1) {
      const refund = refunds[0]!;
      rows.push([t('amountRefunded'), amount], [t('refundReason'), oneLine(refund.reason)]);
      if (refund.reference !== null) rows.push([t('refundReference'), oneLine(refund.reference)]);
      if (refund.completed_at !== null) rows.push([t('refundedAt'), formatTime(refund.completed_at, lang)]);
    } else {
      rows.push([t('refundCount'), String(refunds.length)], [t('amountRefunded'), amount]);
    }
    const total = tx.refunded_amount ?? 0;
    if (total > sum) rows.push([t('refundedInTotal'), formatRupiah(total)]);
    rows.push([payerText('transactionId', lang), tx.id]);
    if (tx.ref !== null) rows.push([t('order'), tx.ref]);
    const list: Block[] = [];
    if (refunds.length > 1) {
      const shown = refunds.slice(0, REFUND_LINES_MAX);
      const rest = refunds.slice(REFUND_LINES_MAX);
      const items = shown.map((r) =>
        [
          formatRupiah(r.amount),
          r.completed_at !== null ? formatTime(r.completed_at, lang) : null,
          oneLine(r.reason),
          r.reference !== null ? oneLine(r.reference) : null,
        ]
          .filter((part) => part !== null)
          .join(' · '),
      );
      if (rest.length > 0)
        items.push(t('moreRefunds', { count: String(rest.length), amount: formatRupiah(sumOf(rest)) }));
      list.push({ kind: 'list', label: t('theRefunds'), items });
    }
    return {
      lang,
      blocks: [
        { kind: 'heading', text: t('refundHeading', { amount }) },
        { kind: 'paragraph', text: t(recorded ? 'refundedRecorded' : 'refundedByAcquirer', { merchant, amount }) },
        { kind: 'fields', rows },
        ...list,
        { kind: 'link', label: t('viewTransaction'), href: checkoutUrl },
        ...sandboxNote(tx, lang),
      ],
    };
  };
  return MAIL_LANGS.map(section);
}

const sandboxNote = (tx: TransactionsTable, lang: Lang): Block[] =>
  tx.mode === 'test' ? [{ kind: 'note', text: payerText('sandbox', lang) }] : [];

function finish(subject: string, sections: Section[], attachments: InlineImage[]): RenderedMail {
  return {
    subject: oneLine(subject),
    text: `${sections.map(sectionText).join('\n\n----------------------------------------\n\n')}\n`,
    html: pageHtml(sections),
    attachments,
  };
}

// --- text -----------------------------------------------------------------------------------------

function sectionText(section: Section): string {
  return section.blocks.map(blockText).join('\n\n');
}

function blockText(b: Section['blocks'][number]): string {
  switch (b.kind) {
    case 'heading':
      return `${b.text}\n${'='.repeat(Math.min(b.text.length, 60))}`;
    case 'paragraph':
      return b.text;
    case 'total':
      return `${b.label}:\n  ${b.value}`;
    case 'fields':
      return b.rows.map(([label, value]) => `${label}: ${value}`).join('\n');
    case 'qr':
      return b.textHint;
    case 'link':
      return `${b.label}:\n${b.href}`;
    case 'list':
      return `${b.label}:\n${b.items.map((item) => `- ${item}`).join('\n')}`;
    case 'note':
      return `* ${b.text}`;
  }
}

// --- HTML -----------------------------------------------------------------------------------------

// Inline styles only: most mail clients drop <style> blocks and never run scripts.
const P = rawHtml('margin:0 0 12px;font-size:15px;line-height:1.5');

function blockHtml(b: Block): SafeHtml {
  switch (b.kind) {
    case 'heading':
      return html`<h2 style="margin:0 0 12px;font-size:20px">${b.text}</h2>`;
    case 'paragraph':
      return html`<p style="${P}">${b.text}</p>`;
    case 'total':
      return html`<p style="${P}">${b.label}<br><strong style="font-size:22px">${b.value}</strong></p>`;
    case 'fields':
      return html`<table role="presentation" style="border-collapse:collapse;margin:0 0 12px;font-size:15px">${b.rows.map(
        ([label, value]) =>
          html`<tr><td style="padding:2px 12px 2px 0;color:#5d6d7e">${label}</td><td style="padding:2px 0">${value}</td></tr>`,
      )}</table>`;
    case 'qr':
      return html`<p style="${P}"><img src="cid:${b.cid}" alt="${b.alt}" width="280" height="280" style="display:block;width:280px;height:280px"></p>`;
    case 'link':
      return html`<p style="${P}"><a href="${b.href}" style="color:#1a5276">${b.label}</a><br><span style="font-size:12px;color:#7f8c8d;word-break:break-all">${b.href}</span></p>`;
    case 'list':
      return html`<p style="${P}">${b.label}</p><ul style="margin:0 0 12px;padding-left:20px;font-size:15px;line-height:1.5">${b.items.map((item) => html`<li>${item}</li>`)}</ul>`;
    case 'note':
      return html`<p style="${P};padding:8px;background:#fff3cd;border-radius:4px">${b.text}</p>`;
  }
}

const EN_STYLE = html` style="color:#424949"`;
const RULE = html`\n<hr style="border:0;border-top:1px solid #d5dbdb;margin:24px 0">\n`;

function pageHtml(sections: Section[]): string {
  const body = sections.map(
    (s, i) =>
      html`${i > 0 && RULE}<div lang="${s.lang}"${s.lang === 'en' && EN_STYLE}>${s.blocks.map((b, j) => html`${j > 0 && '\n'}${blockHtml(b)}`)}</div>`,
  );
  return html`<!doctype html>
<html lang="id">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="margin:0;padding:16px;background:#f4f6f8;font-family:Arial,Helvetica,sans-serif;color:#1b2631">
<div style="max-width:520px;margin:0 auto;background:#fff;border-radius:8px;padding:24px">
${body}
</div>
</body>
</html>
`.toString();
}
