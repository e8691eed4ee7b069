// Amounts as payment services report them: an integer, or a decimal string such as "125021.00"
// (Cekmutasi writes every amount so). The rupiah has no minor unit in practice, so a fraction of zeros is
// dropped and any other fraction is refused rather than rounded: 125021.50 is not a whole-rupiah payment,
// and guessing would credit the wrong amount. Thousands separators are refused too ("125.021" reads as a
// fraction, never as a hundred and twenty-five thousand).
import type { AmountLimits } from './money.js';

export type ReportedAmount =
  | { ok: true; amount: number }
  | { ok: false; reason: 'invalid_amount' | 'not_whole_rupiah' | 'amount_out_of_range' };

const DECIMAL = /^([0-9]{1,32})(?:\.([0-9]{1,6}))?$/;
// 15 significant digits are always below 2^53, so Number() of them is exact.
const MAX_DIGITS = 15;

export function parseReportedAmount(raw: unknown, limits: AmountLimits): ReportedAmount {
  let value: number;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw) || raw < 0 || Object.is(raw, -0)) return { ok: false, reason: 'invalid_amount' };
    if (!Number.isInteger(raw)) return { ok: false, reason: 'not_whole_rupiah' };
    if (!Number.isSafeInteger(raw)) return { ok: false, reason: 'amount_out_of_range' };
    value = raw;
  } else if (typeof raw === 'string') {
    const m = DECIMAL.exec(raw.trim());
    if (!m) return { ok: false, reason: 'invalid_amount' };
    if (m[2] !== undefined && /[1-9]/.test(m[2])) return { ok: false, reason: 'not_whole_rupiah' };
    const significant = m[1]!.replace(/^0+(?=.)/, '');
    if (significant.length > MAX_DIGITS) return { ok: false, reason: 'amount_out_of_range' };
    value = Number(significant);
  } else {
    return { ok: false, reason: 'invalid_amount' };
  }
  if (value < limits.min || value > limits.max) return { ok: false, reason: 'amount_out_of_range' };
  return { ok: true, amount: value };
}
