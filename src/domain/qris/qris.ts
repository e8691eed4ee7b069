// QRIS (EMVCo merchant-presented QR, Indonesian profile) parsing and static-to-dynamic conversion.
// Pure: no I/O. Every rejection is AppError('invalid_qris') with a message naming what is wrong, because
// merchants paste these payloads by hand and need to know which part is broken.
import { AppError } from '../errors.js';
import { crc16, formatCrc } from './crc16.js';
import { encodeField, encodeTlv, parseTlv, type TlvField } from './tlv.js';

const MAX_QRIS_LENGTH = 512;
/** Tag 54 holds at most 13 characters. */
const MAX_DYNAMIC_AMOUNT = 9_999_999_999_999;

const QRIS_ID = 'ID.CO.QRIS.WWW';
const CRC_HEX = /^[0-9A-F]{4}$/;
const AMOUNT = /^([0-9]+)(?:\.([0-9]{2}))?$/;
const NMID = /^ID[0-9]+$/;

export interface ParsedQris {
  payload: string;
  fields: TlvField[];
  initiation: 'static' | 'dynamic' | null;
  /** Whole rupiah. */
  amount: number | null;
  merchantName: string;
  merchantCity: string;
  postalCode: string | null;
  countryCode: string;
  currency: string;
  mcc: string | null;
  nmid: string | null;
  merchantPan: string | null;
  acquirer: string | null;
  criteria: string | null;
  crc: string;
}

export interface QrisFieldDescription {
  tag: string;
  name: string;
  value: string;
  children?: QrisFieldDescription[];
}

const REQUIRED: ReadonlyArray<[string, string]> = [
  ['53', 'transaction currency'],
  ['58', 'country code'],
  ['59', 'merchant name'],
  ['60', 'merchant city'],
];

function invalid(message: string): never {
  throw new AppError('invalid_qris', message);
}

function isMerchantAccountTag(tag: string): boolean {
  const n = Number(tag);
  return n >= 26 && n <= 51;
}

function sub(field: TlvField | undefined, tag: string): string | undefined {
  return field?.children?.find((c) => c.tag === tag)?.value;
}

function parseAmountField(value: string): number {
  const m = AMOUNT.exec(value);
  if (!m || value.length > 13) {
    invalid(`bad amount in tag 54: ${JSON.stringify(value)} is not digits with an optional . and two decimals`);
  }
  // The rupiah has no minor unit; a real fraction would make exact-amount matching ambiguous.
  if (m[2] !== undefined && m[2] !== '00') invalid(`bad amount in tag 54: ${value} is not a whole rupiah amount`);
  const amount = Number(m[1]);
  if (amount < 1) invalid(`bad amount in tag 54: ${value} is not positive`);
  return amount;
}

/** Checks the envelope (00 first, 63 last and well-formed) and returns the CRC and whether it matches. */
function checkEnvelope(
  payload: string,
  fields: TlvField[],
  requireCrcMatch: boolean,
): { crc: string; crcValid: boolean } {
  const first = fields[0];
  if (first?.tag !== '00') invalid('missing tag 00 (payload format indicator) as the first field');
  if (first.value !== '01')
    invalid(`bad payload format indicator: tag 00 is ${JSON.stringify(first.value)}, expected "01"`);

  const crcIndex = fields.findIndex((f) => f.tag === '63');
  if (crcIndex < 0) invalid('missing tag 63 (CRC)');
  if (crcIndex !== fields.length - 1) invalid('tag 63 (CRC) must be the last field');
  const crc = fields[crcIndex]!.value;
  if (crc.length !== 4)
    invalid(`bad CRC field: tag 63 must have length 04, found ${String(crc.length).padStart(2, '0')}`);
  if (!CRC_HEX.test(crc)) invalid(`bad CRC: ${JSON.stringify(crc)} is not 4 upper-case hex digits`);
  // 63 is last and 4 long, so everything but the last 4 characters is what the CRC covers.
  const expected = formatCrc(crc16(payload.slice(0, -4)));
  if (crc !== expected && requireCrcMatch) invalid(`bad CRC: expected ${expected}, found ${crc}`);
  return { crc, crcValid: crc === expected };
}

export function parseQris(payload: string): ParsedQris {
  return parseFields(payload, true).parsed;
}

/**
 * parseQris for showing a code rather than using it: a CRC that does not match is reported instead of
 * refused (every other rule still applies). A result with crcValid false is not one toDynamic trusts.
 */
export function inspectQris(payload: string): { parsed: ParsedQris; crcValid: boolean } {
  return parseFields(payload, false);
}

function parseFields(payload: string, requireCrcMatch: boolean): { parsed: ParsedQris; crcValid: boolean } {
  if (typeof payload !== 'string') invalid('QRIS payload must be a string');
  if (payload.length === 0) invalid('empty QRIS payload');
  if (payload.length > MAX_QRIS_LENGTH) {
    invalid(`QRIS payload too long: ${payload.length} characters, the maximum is ${MAX_QRIS_LENGTH}`);
  }
  const fields = parseTlv(payload);
  const { crc, crcValid } = checkEnvelope(payload, fields, requireCrcMatch);

  const byTag = new Map<string, TlvField>();
  for (const f of fields) {
    if (byTag.has(f.tag)) invalid(`duplicate tag ${f.tag}`);
    byTag.set(f.tag, f);
  }
  const value = (tag: string): string | null => byTag.get(tag)?.value ?? null;

  const poi = value('01');
  if (poi !== null && poi !== '11' && poi !== '12') {
    invalid(`bad point of initiation: tag 01 is ${JSON.stringify(poi)}, expected 11 (static) or 12 (dynamic)`);
  }
  for (const [tag, name] of REQUIRED) {
    if (!byTag.has(tag)) invalid(`missing required tag ${tag} (${name})`);
  }
  const accounts = fields.filter((f) => isMerchantAccountTag(f.tag));
  if (accounts.length === 0) invalid('missing required tag 26-51 (merchant account information)');
  const amountText = value('54');

  // The national template (51) is the authoritative place for NMID and criteria; others are fallbacks.
  const national = byTag.get('51');
  const preferNational = national ? [national, ...accounts.filter((f) => f !== national)] : accounts;
  const nmid = preferNational.map((f) => sub(f, '02')).find((v) => v !== undefined && NMID.test(v));
  const acquirerTemplate =
    accounts.find((f) => {
      const id = sub(f, '00');
      return id !== undefined && id !== QRIS_ID;
    }) ?? accounts[0];

  const parsed: ParsedQris = {
    payload,
    fields,
    initiation: poi === '11' ? 'static' : poi === '12' ? 'dynamic' : null,
    amount: amountText === null ? null : parseAmountField(amountText),
    merchantName: value('59')!,
    merchantCity: value('60')!,
    postalCode: value('61'),
    countryCode: value('58')!,
    currency: value('53')!,
    mcc: value('52'),
    nmid: nmid ?? null,
    merchantPan: accounts.map((f) => sub(f, '01')).find((v) => v !== undefined) ?? null,
    acquirer: sub(acquirerTemplate, '00') ?? null,
    criteria: preferNational.map((f) => sub(f, '03')).find((v) => v !== undefined) ?? null,
    crc,
  };
  if (crcValid) remember(parsed);
  return { parsed, crcValid };
}

/**
 * A merchant's reusable code: not marked dynamic (tag 01 is 11, or absent) and fixing no amount. A code
 * that already fixes an amount cannot be re-used for every charge.
 */
export function isStaticQris(parsed: ParsedQris): boolean {
  return parsed.initiation !== 'dynamic' && parsed.amount === null;
}

/** For merchant onboarding: refuses a code that isStaticQris does not accept. */
export function parseStaticQris(payload: string): ParsedQris {
  const parsed = parseQris(payload);
  if (!isStaticQris(parsed)) {
    invalid("not a static QRIS: tag 01 is 12 (dynamic); use the merchant's static code");
  }
  return parsed;
}

function withCrc(body: string): string {
  const unsigned = `${body}6304`;
  return unsigned + formatCrc(crc16(unsigned));
}

/** Encodes fields (any 63 is dropped) and appends a fresh CRC. */
export function buildQris(fields: TlvField[]): string {
  return withCrc(encodeTlv(fields.filter((f) => f.tag !== '63')));
}

// Results of parseQris, whose CRC and structure are already verified: toDynamic need not parse them
// again (a caller that caches a merchant's parsed static code pays the parse once, not per create).
const verified = new WeakSet<ParsedQris>();
function remember(parsed: ParsedQris): ParsedQris {
  verified.add(parsed);
  return parsed;
}

/**
 * Static-to-dynamic (see README.md, "Your own merchant"): 01 becomes 12, 54 is (re)placed before the
 * first tag above 54, every other field is copied from its raw text so nothing the acquirer wrote is
 * normalised.
 */
export function toDynamic(payload: string | ParsedQris, amount: number): string {
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 1 || amount > MAX_DYNAMIC_AMOUNT) {
    const message = `amount must be a whole number of rupiah from 1 to ${MAX_DYNAMIC_AMOUNT}, got ${String(amount)}`;
    throw new AppError('invalid_amount', message, { param: 'amount' });
  }
  // A ParsedQris built anywhere but parseQris is parsed again: the CRC check is what guarantees the raw
  // values are the acquirer's.
  const { fields } =
    typeof payload !== 'string' && verified.has(payload)
      ? payload
      : parseQris(typeof payload === 'string' ? payload : payload.payload);
  const amountField = encodeField('54', String(amount));
  const hasInitiation = fields.some((f) => f.tag === '01');

  const parts: string[] = [];
  let amountPlaced = false;
  for (const f of fields) {
    if (f.tag === '54' || f.tag === '63') continue;
    if (!amountPlaced && Number(f.tag) > 54) {
      parts.push(amountField);
      amountPlaced = true;
    }
    // The header is re-derived from the raw value; it is the same 2 digits the parser just read.
    parts.push(f.tag === '01' ? '010212' : encodeField(f.tag, f.value));
    if (f.tag === '00' && !hasInitiation) parts.push('010212');
  }
  if (!amountPlaced) parts.push(amountField);

  const result = withCrc(parts.join(''));
  if (result.length > MAX_QRIS_LENGTH) {
    invalid(`dynamic QRIS would be ${result.length} characters, the maximum is ${MAX_QRIS_LENGTH}`);
  }
  return result;
}

const TOP_NAMES: Record<string, string> = {
  '00': 'payload format indicator',
  '01': 'point of initiation',
  '52': 'merchant category code',
  '53': 'transaction currency',
  '54': 'transaction amount',
  '55': 'tip or convenience indicator',
  '56': 'convenience fee (fixed)',
  '57': 'convenience fee (percentage)',
  '58': 'country code',
  '59': 'merchant name',
  '60': 'merchant city',
  '61': 'postal code',
  '62': 'additional data',
  '63': 'CRC',
  '64': 'merchant information (alternate language)',
};

const MERCHANT_ACCOUNT_NAMES: Record<string, string> = {
  '00': 'globally unique identifier (reverse domain)',
  '01': 'merchant PAN',
  '02': 'merchant id',
  '03': 'merchant criteria',
};

const ADDITIONAL_DATA_NAMES: Record<string, string> = {
  '01': 'bill number',
  '02': 'mobile number',
  '03': 'store label',
  '04': 'loyalty number',
  '05': 'reference label',
  '06': 'customer label',
  '07': 'terminal label',
  '08': 'purpose of transaction',
  '09': 'consumer data request',
  '10': 'merchant tax id',
  '11': 'merchant channel',
};

const LANGUAGE_NAMES: Record<string, string> = {
  '00': 'language preference',
  '01': 'merchant name (alternate language)',
  '02': 'merchant city (alternate language)',
};

function topName(tag: string): string {
  const n = Number(tag);
  if (n >= 2 && n <= 25) return 'merchant account information (card network)';
  if (n >= 26 && n <= 51) return 'merchant account information';
  if (n >= 80) return 'unreserved template';
  return TOP_NAMES[tag] ?? 'unknown (reserved)';
}

function childNames(tag: string): Record<string, string> {
  if (isMerchantAccountTag(tag)) return MERCHANT_ACCOUNT_NAMES;
  if (tag === '62') return ADDITIONAL_DATA_NAMES;
  if (tag === '64') return LANGUAGE_NAMES;
  return {};
}

/** Human-readable field list for `qris decode`. */
export function describeQris(parsed: ParsedQris): QrisFieldDescription[] {
  return parsed.fields.map((f) => {
    const out: QrisFieldDescription = { tag: f.tag, name: topName(f.tag), value: f.value };
    if (f.children) {
      const names = childNames(f.tag);
      out.children = f.children.map((c) => ({ tag: c.tag, name: names[c.tag] ?? 'other', value: c.value }));
    }
    return out;
  });
}
