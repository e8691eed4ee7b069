// Rupiah amounts as the merchant apps write them: `Rp1.000`, `Rp10000`, `Rp 25.500`, `Rp 150.000,00`.
// A dot groups thousands, a `,00` ending is cents (only whole rupiah are payments here).

/** The amount part of an app's text; use with the `u` flag off. Captures the rupiah and the cents. */
export const RUPIAH = String.raw`Rp\.? ?((?:\d{1,3}(?:\.\d{3})+)|\d+)(?:,(\d{2}))?(?![\d.,]\d)`;

/** The amount of a RUPIAH match's groups; null for cents that are not zero or a number out of 1..max. */
export function rupiahValue(whole: string, cents: string | undefined, max: number): number | null {
  if (cents !== undefined && cents !== '00') return null;
  const digits = whole.replace(/\./g, '');
  if (digits.length > 15) return null;
  const value = Number(digits);
  return Number.isSafeInteger(value) && value >= 1 && value <= max ? value : null;
}
