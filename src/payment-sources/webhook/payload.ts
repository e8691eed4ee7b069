import { AppError } from '../../domain/errors.js';
import { parseAmount, type AmountLimits } from '../../domain/money.js';

/** A signed webhook's payment, validated. */
export interface WebhookPayment {
  id: string;
  amount: number;
  paidAt: number;
  reference: string | null;
  payer: string | null;
  issuer: string | null;
  /** The parsed body as sent, kept with the payment for operators. */
  raw: Record<string, unknown>;
}

const FIELDS: ReadonlySet<string> = new Set(['id', 'amount', 'paid_at', 'reference', 'payer', 'issuer']);
// Sender ids and references are keys and get echoed: printable ASCII, no surrounding spaces.
const TOKEN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
const FUTURE_TOLERANCE_MS = 60 * 60 * 1000;

const bad = (param: string, message: string): never => {
  throw new AppError('invalid_parameter', message, { param });
};

/** Parses the raw body only after its signature was verified; every field is checked, unknown ones refused. */
export function parseWebhookPayment(body: Buffer, limits: AmountLimits, now: number): WebhookPayment {
  let value: unknown;
  try {
    // fatal: invalid UTF-8 is refused rather than silently replaced.
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new AppError('invalid_body', 'the body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError('invalid_body', 'the body must be a JSON object');
  }
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw))
    if (!FIELDS.has(key)) bad(key, `unknown field ${JSON.stringify(key).slice(0, 40)}`);

  const id = raw.id;
  if (typeof id !== 'string' || id.length === 0 || id.length > 128 || !TOKEN.test(id)) {
    bad('id', 'id must be 1 to 128 printable ASCII characters without surrounding spaces');
  }
  return {
    id: id as string,
    amount: parseAmount(raw.amount, limits, 'amount'),
    paidAt: parsePaidAt(raw.paid_at, now),
    reference: optionalText(raw.reference, 'reference', 128, true),
    payer: optionalText(raw.payer, 'payer', 200, false),
    issuer: optionalText(raw.issuer, 'issuer', 64, false),
    raw,
  };
}

function parsePaidAt(value: unknown, now: number): number {
  if (value === undefined || value === null || value === '') bad('paid_at', 'paid_at is required');
  const m = typeof value === 'string' ? ISO.exec(value) : null;
  if (!m) return bad('paid_at', 'paid_at must be an ISO-8601 time with an offset, e.g. "2025-01-31T14:05:00+07:00"');
  const [y, mo, d, h, mi] = m.slice(1, 6).map(Number) as [number, number, number, number, number];
  const s = m[6] === undefined ? 0 : Number(m[6]);
  // Date.parse rolls 31 February over into March; a real calendar date is required.
  const calendar = new Date(Date.UTC(y, mo - 1, d));
  if (calendar.getUTCMonth() !== mo - 1 || calendar.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    bad('paid_at', 'paid_at is not a valid date and time');
  }
  // Only the extended offset form (+07:00) is ECMAScript's own; +0700 is normalised to it.
  const ms = Date.parse((value as string).replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  if (!Number.isFinite(ms) || y < 2000) return bad('paid_at', 'paid_at is not a valid date and time');
  if (ms > now + FUTURE_TOLERANCE_MS) bad('paid_at', 'paid_at is in the future');
  return ms;
}

function optionalText(value: unknown, param: string, max: number, ascii: boolean): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return bad(param, `${param} must be a string`);
  const text = value.trim();
  if (text === '') return null;
  if (text.length > max) bad(param, `${param} must be at most ${max} characters`);
  // Names may be in any script, but control characters would corrupt logs and terminals.
  if (ascii ? !TOKEN.test(text) : /[\p{Cc}\p{Cf}]/u.test(text))
    bad(param, `${param} contains characters that are not allowed`);
  return text;
}
