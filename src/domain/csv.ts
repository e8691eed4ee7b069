// CSV that spreadsheets read safely: RFC 4180 quoting (a cell with a quote, comma or line break is
// quoted, its quotes doubled), and no text cell that a spreadsheet would run as a formula. A payer's
// ref or e-mail is theirs to choose, so "=HYPERLINK(...)" must arrive as text, not as a formula.

export type CsvValue = string | number | boolean | null;

/** What a spreadsheet takes as the start of a formula (tab and CR too: some strip them first). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: null is empty; text starting like a formula gets a leading apostrophe, then quoting. */
export function csvCell(value: CsvValue): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record with its CRLF line end. */
export function csvRow(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
