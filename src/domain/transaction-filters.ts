// The console's transaction filters, read from a query string: what each field may hold and what it
// means. Dates are WIB calendar days (Asia/Jakarta, UTC+7 all year), the days merchants keep books by.
import type { Mode, TransactionStatus } from './records.js';

export const WIB_OFFSET_MS = 7 * 3600_000;
export const DAY_MS = 86_400_000;
const SEARCH_MAX = 254;

export interface TransactionSearch {
  /** The text as typed (trimmed): found anywhere in a ref or an e-mail, case-insensitively. */
  text: string;
  /** Set when the text is a transaction id: then only that transaction is looked for. */
  trxid: string | null;
  /** Set when the text reads as a rupiah amount ("10123", "10.123", "Rp 10.123"): matched to total_amount. */
  amount: number | null;
}

export interface TransactionFilters {
  merchantId: string | null;
  mode: Mode | null;
  status: TransactionStatus | null;
  /** First and last WIB day, as YYYY-MM-DD (both included). */
  from: string | null;
  to: string | null;
  search: TransactionSearch | null;
  /** Only the sales of this cashier (a user id, as the point of sale records it); absent: anyone's. */
  cashier?: string | null;
}

export type FilterProblem = 'status' | 'mode' | 'from' | 'to' | 'range' | 'search';

export const STATUSES: readonly TransactionStatus[] = ['pending', 'paid', 'expired', 'cancelled'];
const MODES: readonly Mode[] = ['test', 'live'];

/** A query-string value as one string: absent, repeated or non-text values are the empty string. */
function one(raw: Record<string, unknown>, name: string): string {
  const value = raw[name];
  return typeof value === 'string' ? value.trim() : '';
}

/**
 * The filters of a query string. A field that does not parse is left out of the filters and named in
 * `problems`, so the page can say what is wrong and still show the form as it was sent.
 */
export function parseTransactionFilters(raw: Record<string, unknown>): {
  filters: TransactionFilters;
  problems: FilterProblem[];
} {
  const problems: FilterProblem[] = [];
  const status = one(raw, 'status');
  const mode = one(raw, 'mode');
  const from = one(raw, 'from');
  const to = one(raw, 'to');
  const merchant = one(raw, 'merchant');
  const cashier = one(raw, 'cashier');
  const filters: TransactionFilters = {
    merchantId: merchant === '' ? null : merchant,
    mode: null,
    status: null,
    from: null,
    to: null,
    search: null,
    // A user id is plain ASCII; anything else finds no sale rather than being an error to explain.
    cashier: cashier === '' ? null : cashier.slice(0, 64),
  };
  if (status !== '') {
    if ((STATUSES as readonly string[]).includes(status)) filters.status = status as TransactionStatus;
    else problems.push('status');
  }
  if (mode !== '') {
    if ((MODES as readonly string[]).includes(mode)) filters.mode = mode as Mode;
    else problems.push('mode');
  }
  if (from !== '') {
    if (wibDayStart(from) !== null) filters.from = from;
    else problems.push('from');
  }
  if (to !== '') {
    if (wibDayStart(to) !== null) filters.to = to;
    else problems.push('to');
  }
  if (filters.from !== null && filters.to !== null && filters.from > filters.to) {
    problems.push('range');
    filters.from = null;
    filters.to = null;
  }
  const q = one(raw, 'q');
  if (q !== '') {
    const search = parseSearch(q);
    if (search) filters.search = search;
    else problems.push('search');
  }
  return { filters, problems };
}

/** What a search text looks for; null when it is too long or holds control characters. */
export function parseSearch(raw: string): TransactionSearch | null {
  const text = raw.trim();
  if (text === '' || text.length > SEARCH_MAX || /[\p{Cc}\p{Cf}]/u.test(text)) return null;
  return {
    text,
    trxid: /^trx_[0-9A-Za-z]{1,64}$/.test(text) ? text : null,
    amount: parseRupiahText(text),
  };
}

/**
 * A rupiah amount as people write it: "10123", "10.123" or "10,123" (thousands grouped), with an
 * optional "Rp" and an optional ",00" / ".00" / ",-" tail. Null for anything else.
 */
export function parseRupiahText(raw: string): number | null {
  const m = /^(?:rp\.?\s*)?(\d{1,15}|\d{1,3}(?:\.\d{3}){1,4}|\d{1,3}(?:,\d{3}){1,4})(?:[.,]00|,-)?$/i.exec(raw.trim());
  if (!m) return null;
  const value = Number(m[1]!.replace(/[.,]/g, ''));
  return Number.isSafeInteger(value) ? value : null;
}

/** Epoch ms at which the WIB day YYYY-MM-DD starts; null for anything that is not a real date. */
export function wibDayStart(day: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const utc = Date.UTC(y, mo - 1, d);
  const check = new Date(utc);
  if (y < 2000 || check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d)
    return null;
  return utc - WIB_OFFSET_MS;
}

/** The WIB date (YYYY-MM-DD) of an instant. */
export function wibDate(ms: number): string {
  return new Date(ms + WIB_OFFSET_MS).toISOString().slice(0, 10);
}

/** The created_at bounds the filters' days mean: [from's start, the start of the day after `to`). */
export function createdRange(filters: Pick<TransactionFilters, 'from' | 'to'>): {
  from: number | null;
  before: number | null;
} {
  const from = filters.from === null ? null : wibDayStart(filters.from);
  const to = filters.to === null ? null : wibDayStart(filters.to);
  return { from, before: to === null ? null : to + DAY_MS };
}

/** The filters as query-string pairs (for links that keep them: other pages, the CSV export). */
export function filterParams(filters: TransactionFilters): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  if (filters.search) pairs.push(['q', filters.search.text]);
  if (filters.status) pairs.push(['status', filters.status]);
  if (filters.merchantId) pairs.push(['merchant', filters.merchantId]);
  if (filters.mode) pairs.push(['mode', filters.mode]);
  if (filters.from) pairs.push(['from', filters.from]);
  if (filters.to) pairs.push(['to', filters.to]);
  if (filters.cashier) pairs.push(['cashier', filters.cashier]);
  return pairs;
}
