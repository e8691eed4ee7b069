// The daily report e-mail to a merchant's owners: one WIB day's figures, in Bahasa Indonesia first and
// English after (as the payer's mails), as text and as HTML with the same table. Amounts as Rp25.000.
import type { DailyReportRow, Tally } from '../domain/daily-report.js';
import { html, type SafeHtml } from '../domain/html.js';
import { formatRupiah } from '../domain/money.js';
import { type Translate, translator } from '../presentation/messages.js';
import type { RenderedMail } from './templates.js';
import { words } from './daily-report-mail.words.js';

/** One line: a merchant's name is untrusted text and must not break the subject or the layout. */
const oneLine = (text: string) =>
  text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 100);

/** The money received, the one figure each payment of it is in, then the refunds (docs/payments.md, "Reports"). */
function figures(row: DailyReportRow, t: Translate<keyof (typeof words)['en']>): Array<[string, string]> {
  return [
    [t('received'), formatRupiah(row.received_sum)],
    [t('paid'), String(row.paid_count)],
    [t('paidSum'), formatRupiah(row.paid_sum)],
    [t('receivedOpen'), formatRupiah(row.received_open_sum)],
    [t('unmatched'), String(row.unmatched_count)],
    [t('unmatchedSum'), formatRupiah(row.unmatched_sum)],
    [t('returned'), formatRupiah(row.returned_sum)],
    [t('refunded'), formatRupiah(row.refunded_sum)],
  ];
}

/** Each source by its name with its id (a named source), else by its id. */
const sources = (tallies: Record<string, Tally>, names: ReadonlyMap<string, string>): Array<[string, string]> =>
  Object.keys(tallies)
    .sort()
    .map((k) => {
      const name = names.get(k);
      return [
        name === undefined ? k : `${oneLine(name)} (${k})`,
        `${tallies[k]!.count} · ${formatRupiah(tallies[k]!.sum)}`,
      ];
    });

export function renderDailyReportMail(input: {
  merchantName: string;
  row: DailyReportRow;
  sourceNames?: ReadonlyMap<string, string>;
}): RenderedMail {
  const merchant = oneLine(input.merchantName);
  const { row } = input;
  const parts = (['id', 'en'] as const).map((lang) => {
    const t = translator(words, lang);
    const w = { heading: t('heading'), bySource: t('bySource'), note: t('note') };
    const intro = t('intro', { day: row.day, merchant });
    return { w, intro, rows: figures(row, t), bySource: sources(row.by_source, input.sourceNames ?? new Map()) };
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
      ([k, v]) =>
        html`<tr><td style="padding:4px 12px 4px 0">${k}</td><td style="padding:4px 0;text-align:right"><strong>${v}</strong></td></tr>`,
    )}</table>`;
  const body = html`<!doctype html><html><body style="font-family:sans-serif;color:#1f2933">${parts.map(
    ({ w, intro, rows, bySource }, i) =>
      html`${i > 0 ? html`<hr>` : ''}<h2>${w.heading}</h2><p>${intro}</p>${table(rows)}${
        bySource.length > 0 ? html`<p>${w.bySource}:</p>${table(bySource)}` : ''
      }<p style="color:#66788a;font-size:small">${w.note}</p>`,
  )}</body></html>`;
  return {
    subject: translator(words, 'id')('subject', {
      day: row.day,
      merchant,
      count: row.paid_count,
      sum: formatRupiah(row.paid_sum),
    }),
    text: `${text}\n`,
    html: String(body),
    attachments: [],
  };
}
