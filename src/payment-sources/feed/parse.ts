// Parsing a mutation feed (the merchant's incoming-payment history) defensively: these feeds are not
// specified anywhere, change shape without notice, write local time (WIB) without an offset, sometimes
// drop the seconds, and format amounts for people ("10.123", "10,123.00"). Pure: no I/O.
import { createHash } from 'node:crypto';

/** Where each value sits in a feed entry; paths are dotted ("data", "meta.items"). */
export interface FeedMapping {
  /** The list of entries in the response. */
  items: string;
  date: string;
  amount: string;
  /** The entry's direction; null when the feed lists credits only. */
  type: string | null;
  /** The value of `type` that marks an incoming payment. */
  credit: string;
  /** A key unique per entry, used as the payment's id; null to use the reference (else a hash) instead. */
  id: string | null;
  /** The payment's reference; when `id` is null, it is unique per payment and used as the payment's id. */
  reference: string | null;
  issuer: string | null;
  payer: string | null;
  /** The offset of times written without one: WIB, +07:00, for Indonesian feeds. */
  utcOffset: string;
}

/** The OrderKuota-style shape: {"status":"success","data":[{"date","amount","type":"CR","brand_name","issuer_reff","buyer_reff",...}]}. */
export const DEFAULT_MAPPING: FeedMapping = {
  items: 'data',
  date: 'date',
  amount: 'amount',
  type: 'type',
  credit: 'CR',
  id: null,
  reference: 'issuer_reff',
  issuer: 'brand_name',
  payer: 'buyer_reff',
  utcOffset: '+07:00',
};

/**
 * The merchant-app history shape that several mutation APIs answer (asked with a form POST carrying the
 * account's login): {"qris_history":{"results":[{"id","tanggal":"28/11/2026 14:05","kredit":"1.000",
 * "debet":"0","status":"IN"|"OUT","keterangan","brand":{"name"}}]}}. Times are WIB to the minute,
 * amounts use "." between thousands; only IN entries are credits.
 */
export const QRIS_HISTORY_MAPPING: FeedMapping = {
  items: 'qris_history.results',
  date: 'tanggal',
  amount: 'kredit',
  type: 'status',
  credit: 'IN',
  id: 'id',
  reference: 'keterangan',
  issuer: 'brand.name',
  payer: null,
  utcOffset: '+07:00',
};

/** Mappings known by name (`--mapping qris-history`, or the name in the console's mapping field). */
export const MAPPING_PRESETS: Readonly<Record<string, FeedMapping>> = {
  'qris-history': QRIS_HISTORY_MAPPING,
};

export interface FeedEntry {
  /** Stable across polls: the reference, else a hash of what identifies the entry. */
  id: string;
  amount: number;
  paidAt: number;
  reference: string | null;
  issuer: string | null;
  payer: string | null;
  raw: Record<string, unknown>;
}

export interface ParsedFeed {
  entries: FeedEntry[];
  /** Entries that were not credits (debits, fees): expected, not logged as problems. */
  ignored: number;
  /** Entries that could not be read, with why (logged, never fatal). */
  skipped: Array<{ index: number; why: string }>;
}

export class FeedFormatError extends Error {}

/** The largest amount taken from a feed: 15 digits stay exact as a JS number. */
const MAX_AMOUNT = 999_999_999_999_999;

export function parseFeed(body: unknown, mapping: FeedMapping = DEFAULT_MAPPING): ParsedFeed {
  if (Array.isArray(body) && mapping.items === '') return parseItems(body, mapping);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new FeedFormatError('the feed did not answer with a JSON object');
  }
  const envelope = body as Record<string, unknown>;
  const message = typeof envelope.message === 'string' ? envelope.message.trim() : '';
  if (FAILED.has(typeof envelope.status === 'string' ? envelope.status.trim().toLowerCase() : envelope.status)) {
    throw new FeedFormatError(
      `the feed answered status ${describe(envelope.status)}${message ? ` (${message.slice(0, 120)})` : ''}`,
    );
  }
  const list = pick(envelope, mapping.items);
  if (Array.isArray(list)) return parseItems(list, mapping);
  // {"status":"success","message":"no data"}: an empty history, not an error.
  if ((list === undefined || list === null) && NO_DATA.test(message)) return { entries: [], ignored: 0, skipped: [] };
  throw new FeedFormatError(`the feed has no list at "${mapping.items}"`);
}

const FAILED: ReadonlySet<unknown> = new Set<unknown>(['error', 'failed', 'fail', 'gagal', false]);
const NO_DATA = /no data|tidak ada|kosong|empty|not found/i;

function parseItems(list: unknown[], mapping: FeedMapping): ParsedFeed {
  const result: ParsedFeed = { entries: [], ignored: 0, skipped: [] };
  const seen = new Map<string, number>();
  list.forEach((item, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      result.skipped.push({ index, why: 'not an object' });
      return;
    }
    const raw = item as Record<string, unknown>;
    if (mapping.type !== null) {
      const type = pick(raw, mapping.type);
      if (typeof type !== 'string' || type.trim().toUpperCase() !== mapping.credit.toUpperCase()) {
        result.ignored += 1;
        return;
      }
    }
    const amountValue = pick(raw, mapping.amount);
    // A credit of nothing (a history's "0" in its credit column) is no payment: ignored, not unreadable.
    if (isZeroAmount(amountValue)) {
      result.ignored += 1;
      return;
    }
    const amount = parseFeedAmount(amountValue);
    if (amount === null) {
      result.skipped.push({ index, why: `unreadable amount ${describe(pick(raw, mapping.amount))}` });
      return;
    }
    const paidAt = parseFeedTime(pick(raw, mapping.date), mapping.utcOffset);
    if (paidAt === null) {
      result.skipped.push({ index, why: `unreadable date ${describe(pick(raw, mapping.date))}` });
      return;
    }
    const reference = text(mapping.reference === null ? undefined : pick(raw, mapping.reference), 128);
    const issuer = text(mapping.issuer === null ? undefined : pick(raw, mapping.issuer), 64);
    const payer = text(mapping.payer === null ? undefined : pick(raw, mapping.payer), 200);
    const key = mapping.id === null ? reference : text(pick(raw, mapping.id), 128);
    if (mapping.id !== null && key === null) {
      result.skipped.push({ index, why: `no id at "${mapping.id}"` });
      return;
    }
    let id =
      key ??
      `h:${createHash('sha256')
        .update(JSON.stringify([paidAt, amount, issuer, payer]))
        .digest('hex')
        .slice(0, 32)}`;
    // Two identical entries (the same payer paying the same amount within one second) are two payments:
    // the second copy in one response gets its own id. Ids and references are unique by definition and kept.
    const copies = (seen.get(id) ?? 0) + 1;
    seen.set(id, copies);
    if (copies > 1) {
      if (key !== null) {
        result.skipped.push({
          index,
          why: `repeats the ${mapping.id === null ? 'reference' : 'id'} of an earlier entry`,
        });
        return;
      }
      id = `${id}:${copies}`;
    }
    result.entries.push({ id, amount, paidAt, reference, issuer, payer, raw });
  });
  return result;
}

/**
 * Whole rupiah from a number or a string such as "10123", "10.123", "10,123", "Rp 10.123,00" or
 * "10,123.00". A final group of one or two digits is a fraction and must be zero; every other
 * separator must split groups of three. Anything else is unreadable (null), never guessed.
 */
export function parseFeedAmount(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 && value <= MAX_AMOUNT ? value : null;
  if (typeof value !== 'string') return null;
  let s = value
    .trim()
    .replace(/^(?:rp|idr)\.?\s*/i, '')
    .replace(/\s+/g, '');
  const fraction = /^(.*\d)[.,](\d{1,2})$/.exec(s);
  if (fraction) {
    if (!/^0+$/.test(fraction[2]!)) return null;
    s = fraction[1]!;
  }
  let digits: string;
  if (/^\d+$/.test(s)) digits = s;
  else if (/^\d{1,3}(?:\.\d{3})+$/.test(s) || /^\d{1,3}(?:,\d{3})+$/.test(s)) digits = s.replace(/[.,]/g, '');
  else return null;
  if (digits.replace(/^0+/, '').length > 15) return null;
  const amount = Number(digits);
  return amount > 0 && amount <= MAX_AMOUNT ? amount : null;
}

/** 0, "0", "0.00", "Rp 0,00": an amount of nothing. */
function isZeroAmount(value: unknown): boolean {
  if (typeof value === 'number') return value === 0;
  return typeof value === 'string' && /^\s*(?:(?:rp|idr)\.?\s*)?0+(?:[.,]0+)?\s*$/i.test(value);
}

const LOCAL_TIME =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2})[:.](\d{2})(?:[:.](\d{2})(?:\.\d{1,9})?)?)?\s*(Z|[+-]\d{2}:?\d{2}|WIB)?$/i;
const DAY_FIRST =
  /^(\d{1,2})[/-](\d{1,2})[/-](\d{4})(?:[ T](\d{1,2})[:.](\d{2})(?:[:.](\d{2}))?)?\s*(Z|[+-]\d{2}:?\d{2}|WIB)?$/i;

/**
 * Milliseconds since the epoch from "YYYY-MM-DD HH:mm:ss" (seconds optional; ISO "T" and an offset
 * accepted) or "DD/MM/YYYY HH:mm[:ss]". Times without an offset are local to the feed (utcOffset);
 * "WIB" is +07:00. A number is taken as unix seconds (or milliseconds when it is that large).
 */
export function parseFeedTime(value: unknown, utcOffset = '+07:00'): number | null {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value <= 0) return null;
    return Math.round(value < 1e11 ? value * 1000 : value);
  }
  if (typeof value !== 'string') return null;
  const s = value.trim();
  let parts: string[] | null = null;
  const m = LOCAL_TIME.exec(s);
  const dayFirst = m ? null : DAY_FIRST.exec(s);
  if (m) parts = [m[1]!, m[2]!, m[3]!, m[4] ?? '0', m[5] ?? '0', m[6] ?? '0', m[7] ?? ''];
  else if (dayFirst)
    parts = [
      dayFirst[3]!,
      dayFirst[2]!,
      dayFirst[1]!,
      dayFirst[4] ?? '0',
      dayFirst[5] ?? '0',
      dayFirst[6] ?? '0',
      dayFirst[7] ?? '',
    ];
  if (!parts) return null;
  const [y, mo, d, h, mi, sec] = parts.slice(0, 6).map(Number) as [number, number, number, number, number, number];
  if (y < 2000 || y > 2200 || h > 23 || mi > 59 || sec > 59) return null;
  const wall = Date.UTC(y, mo - 1, d, h, mi, sec);
  const check = new Date(wall);
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return null;
  const zone = parts[6]!.toUpperCase();
  const offset = offsetMinutes(zone === '' ? utcOffset : zone === 'WIB' ? '+07:00' : zone);
  return offset === null ? null : wall - offset * 60_000;
}

export function offsetMinutes(zone: string): number | null {
  if (zone.toUpperCase() === 'Z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (!m) return null;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  if (Number(m[2]) > 14 || Number(m[3]) > 59) return null;
  return m[1] === '-' ? -minutes : minutes;
}

function pick(object: Record<string, unknown>, path: string): unknown {
  let current: unknown = object;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = Object.hasOwn(current, key) ? (current as Record<string, unknown>)[key] : undefined;
  }
  return current;
}

function text(value: unknown, max: number): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) value = String(value);
  if (typeof value !== 'string') return null;
  // Control characters would corrupt logs and terminals; feeds do not need them.
  const clean = value.replace(/[\p{Cc}\p{Cf}]/gu, '').trim();
  if (clean === '' || clean === '-') return null;
  return clean.slice(0, max);
}

function describe(value: unknown): string {
  const shown = JSON.stringify(value);
  return shown === undefined ? String(value) : shown.length > 40 ? `${shown.slice(0, 40)}…` : shown;
}
