// The daily report e-mail to a merchant's owners: one WIB day's figures, in Bahasa Indonesia first and
// English after (as the payer's mails), as text and as HTML with the same table. Amounts as Rp25.000.
import type { DailyReportRow, Tally } from '../domain/daily-report.js';
import { html, type SafeHtml } from '../domain/html.js';
import { formatRupiah } from '../domain/money.js';
import type { RenderedMail } from './templates.js';

const WORDS = {
  id: {
    heading: 'Laporan harian',
    intro: 'Angka hari {day} (WIB) untuk {merchant}:',
    paid: 'Transaksi lunas',
    received: 'Diterima',
    refunded: 'Dikembalikan (refund berhasil)',
    unmatched: 'Pembayaran tak cocok',
    unmatchedSum: 'Jumlah tak cocok',
    bySource: 'Per sumber pembayaran',
    note: 'Anda menerima e-mail ini karena laporan harian diaktifkan untuk merchant ini di konsol.',
  },
  en: {
    heading: 'Daily report',
    intro: 'The figures of {day} (WIB) for {merchant}:',
    paid: 'Paid transactions',
    received: 'Received',
    refunded: 'Refunded (succeeded refunds)',
    unmatched: 'Unmatched payments',
    unmatchedSum: 'Unmatched amount',
    bySource: 'By payment source',
    note: 'You get this e-mail because the daily report is on for this merchant in the console.',
  },
} as const;

/** One line: a merchant's name is untrusted text and must not break the subject or the layout. */
const oneLine = (text: string) =>
  text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 100);

function figures(row: DailyReportRow, w: (typeof WORDS)['id' | 'en']): Array<[string, string]> {
  return [
    [w.paid, String(row.paid_count)],
    [w.received, formatRupiah(row.paid_sum)],
    [w.refunded, formatRupiah(row.refunded_sum)],
    [w.unmatched, String(row.unmatched_count)],
    [w.unmatchedSum, formatRupiah(row.unmatched_sum)],
  ];
}

const sources = (tallies: Record<string, Tally>): Array<[string, string]> =>
  Object.keys(tallies)
    .sort()
    .map((k) => [k, `${tallies[k]!.count} · ${formatRupiah(tallies[k]!.sum)}`]);

export function renderDailyReportMail(input: { merchantName: string; row: DailyReportRow }): RenderedMail {
  const merchant = oneLine(input.merchantName);
  const { row } = input;
  const parts = (['id', 'en'] as const).map((lang) => {
    const w = WORDS[lang];
    const intro = w.intro.replace('{day}', row.day).replace('{merchant}', merchant);
    return { w, intro, rows: figures(row, w), bySource: sources(row.by_source) };
  });
  const text = parts
    .map(({ w, intro, rows, bySource }) =>
      [
        w.heading,
        '',
        intro,
        ...rows.map(([k, v]) => `  ${k}: ${v}`),
        ...(bySource.length > 0 ? ['', `${w.bySource}:`, ...bySource.map(([k, v]) => `  ${k}: ${v}`)] : []),
        '',
        w.note,
      ].join('\n'),
    )
    .join('\n\n---\n\n');
  const table = (rows: Array<[string, string]>): SafeHtml =>
    html`<table style="border-collapse:collapse">${rows.map(
      ([k, v]) => html`<tr><td style="padding:4px 12px 4px 0">${k}</td><td style="padding:4px 0;text-align:right"><strong>${v}</strong></td></tr>`,
    )}</table>`;
  const body = html`<!doctype html><html><body style="font-family:sans-serif;color:#1f2933">${parts.map(
    ({ w, intro, rows, bySource }, i) =>
      html`${i > 0 ? html`<hr>` : ''}<h2>${w.heading}</h2><p>${intro}</p>${table(rows)}${
        bySource.length > 0 ? html`<p>${w.bySource}:</p>${table(bySource)}` : ''
      }<p style="color:#66788a;font-size:small">${w.note}</p>`,
  )}</body></html>`;
  return {
    subject: `Laporan harian ${row.day} · ${merchant}: ${row.paid_count} lunas, ${formatRupiah(row.paid_sum)}`,
    text: `${text}\n`,
    html: String(body),
    attachments: [],
  };
}
