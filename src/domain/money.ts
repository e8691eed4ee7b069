// Amounts are whole rupiah. QRIS tag 54 allows a decimal point, but the rupiah has no minor unit in
// practice, so the API accepts only plain digits, optionally followed by ".00" (which some clients send),
// and rejects every other form loudly instead of guessing what "1.000" or "1,5" meant.
import { AppError } from './errors.js';

/** Bank Indonesia's per-transaction QRIS limit. */
export const MAX_QRIS_AMOUNT = 10_000_000;

// 15 digits is always below 2^53, so Number() on a string that passed this check is exact.
const MAX_DIGITS = 15;

const CANONICAL = /^[0-9]+(\.00)?$/;

export interface AmountLimits {
  min: number;
  max: number;
}

/** "Rp10.000.000": Indonesian formatting, dots between thousands; deterministic (no ICU dependency). */
export function formatRupiah(n: number): string {
  if (!Number.isFinite(n)) return `Rp${String(n)}`;
  const whole = Math.trunc(n);
  // BigInt gives plain digits even where String() would switch to exponent notation (>= 1e21).
  const digits = BigInt(Math.abs(whole)).toString();
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${whole < 0 ? '-' : ''}Rp${grouped}`;
}

export function parseAmount(raw: unknown, limits: AmountLimits, param = 'amount'): number {
  const fail = (code: 'amount_required' | 'invalid_amount' | 'amount_out_of_range', message: string): never => {
    throw new AppError(code, message, { param });
  };
  const tooLarge = (): never =>
    fail('amount_out_of_range', `${param} is larger than the maximum of ${formatRupiah(limits.max)}`);

  let value: number;
  if (raw === undefined || raw === null || raw === '') {
    return fail('amount_required', `${param} is required`);
  } else if (typeof raw === 'string') {
    if (!CANONICAL.test(raw)) return fail('invalid_amount', describeBadString(raw, param));
    const intPart = raw.endsWith('.00') ? raw.slice(0, -3) : raw;
    // Leading zeros carry no value; count only significant digits so "000…0100" is still fine.
    const significant = intPart.replace(/^0+(?=.)/, '');
    if (significant.length > MAX_DIGITS) return tooLarge();
    value = Number(significant);
  } else if (typeof raw === 'number') {
    if (Number.isNaN(raw)) return fail('invalid_amount', `${param} must be a number, got NaN`);
    if (!Number.isFinite(raw)) return fail('invalid_amount', `${param} must be finite`);
    if (!Number.isInteger(raw)) return fail('invalid_amount', `${param} must be whole rupiah, without a fraction`);
    // Strings cannot carry a sign, so neither may numbers; -0 is included (Number.isSafeInteger(-0) is true).
    if (raw < 0 || Object.is(raw, -0)) return fail('invalid_amount', `${param} must not be negative`);
    if (!Number.isSafeInteger(raw)) return tooLarge();
    value = raw;
  } else if (Array.isArray(raw)) {
    return fail('invalid_amount', `${param} must be a single value, not a list`);
  } else {
    return fail(
      'invalid_amount',
      `${param} must be a string of digits or an integer, got ${typeof raw === 'object' ? 'an object' : `a ${typeof raw}`}`,
    );
  }

  if (value < limits.min || value > limits.max) {
    return fail(
      'amount_out_of_range',
      `${param} must be between ${formatRupiah(limits.min)} and ${formatRupiah(limits.max)}`,
    );
  }
  return value;
}

// Only called for strings that failed CANONICAL; picks the most specific explanation so a client
// developer can fix the request without reading docs. The raw value is not echoed (it may be huge).
function describeBadString(s: string, param: string): string {
  const example = `send whole rupiah as plain digits, e.g. "10000"`;
  if (/[^\x00-\x7F]/.test(s)) {
    if (/\p{Nd}/u.test(s.replace(/[0-9]/g, ''))) return `${param} must use ASCII digits 0-9; ${example}`;
    if (/\s/.test(s)) return `${param} must not contain spaces; ${example}`;
    return `${param} contains non-ASCII characters; ${example}`;
  }
  if (/[\x00-\x1F\x7F]/.test(s)) return `${param} contains control characters; ${example}`;
  if (/\s/.test(s)) return `${param} must not contain spaces; ${example}`;
  if (/^[+-]/.test(s)) {
    return s.startsWith('-') ? `${param} must not be negative` : `${param} must not have a sign; ${example}`;
  }
  if (/^[0-9.]*[eE][+-]?[0-9]*$/.test(s) && /[0-9]/.test(s))
    return `${param} must not use exponent notation; ${example}`;
  if (/[^0-9.,]/.test(s)) return `${param} must contain only digits; ${example}`;
  if (s.includes(',')) return `${param} must not contain ',' (neither thousands nor decimal separator); ${example}`;
  // From here the string is digits and dots only, and not canonical.
  const dots = s.split('.').length - 1;
  if (dots > 1) return `${param} must not use '.' as a thousands separator; ${example}`;
  const [intPart = '', frac = ''] = s.split('.');
  if (intPart === '' || frac === '') return `${param} has a misplaced '.'; ${example}`;
  if (frac.length === 3 && intPart.length <= 3) {
    return `${param} must not use '.' as a thousands separator; ${example}`;
  }
  return `${param} must be whole rupiah; the only fraction allowed is ".00"`;
}
