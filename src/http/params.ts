import { createHash } from 'node:crypto';
import { AppError } from '../domain/errors.js';

/** A whole number within bounds, digits only: "60", never " 60", "6e1" or "60.0". */
export function parseBoundedInt(
  raw: unknown,
  param: string,
  min: number,
  max: number,
  fallback: number | null,
): number | null {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const text = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
  if (typeof text !== 'string' || !/^[0-9]{1,9}$/.test(text)) {
    throw new AppError('invalid_parameter', `${param} must be a whole number from ${min} to ${max}`, { param });
  }
  const value = Number(text);
  if (value < min || value > max) {
    throw new AppError('invalid_parameter', `${param} must be a whole number from ${min} to ${max}`, { param });
  }
  return value;
}

// Order ids and idempotency keys are echoed back and stored: printable ASCII only, bounded.
const TOKEN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

export function parseToken(raw: unknown, param: string, maxLength: number): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > maxLength || !TOKEN.test(raw)) {
    throw new AppError(
      'invalid_parameter',
      `${param} must be 1 to ${maxLength} printable ASCII characters without leading or trailing spaces`,
      { param },
    );
  }
  return raw;
}

const TRXID = /^trx_[0-9A-Za-z]{1,64}$/;

export function parseTrxid(raw: unknown, required: boolean): string | null {
  if (raw === undefined || raw === null || raw === '') {
    if (required) throw new AppError('invalid_parameter', 'trxid is required', { param: 'trxid' });
    return null;
  }
  if (typeof raw !== 'string' || !TRXID.test(raw)) {
    throw new AppError('invalid_parameter', 'trxid is not a transaction id (trx_...)', { param: 'trxid' });
  }
  return raw;
}

export function requestHash(parts: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/**
 * An application/x-www-form-urlencoded body as an object. A repeated field becomes a list (which the
 * schemas reject), exactly as a repeated query parameter does, instead of silently keeping the last.
 */
export function parseFormBody(body: string): Record<string, string | string[]> {
  const fields = new Map<string, string | string[]>();
  for (const [key, value] of new URLSearchParams(body)) {
    const prior = fields.get(key);
    fields.set(key, prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value]);
  }
  // fromEntries defines own properties, so a "__proto__" field cannot reach the prototype.
  return Object.fromEntries(fields);
}

/**
 * True when a string anywhere in a request's parameters, query or parsed body (keys included) holds a
 * NUL character. PostgreSQL refuses NUL in text, so such a value would fail as a database error (a 500)
 * wherever it reaches a query; no field of ours has a use for one. Walked without recursion (a body may
 * nest thousands deep); uploaded files (bytes) are not text and are skipped.
 */
export function holdsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (typeof v === 'object' && v !== null && !(v instanceof Uint8Array)) {
      for (const key of Object.keys(v)) {
        if (key.includes('\u0000')) return true;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}
