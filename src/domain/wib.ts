// Western Indonesia Time (WIB) is UTC+7 all year, with no daylight saving: a WIB day starts at 17:00
// UTC the day before. Merchants keep their books by WIB days, so daily figures and quotas use them.

export const WIB_OFFSET_MS = 7 * 3600_000;
const DAY_MS = 86_400_000;

/** Days since the epoch, counted in WIB. */
export function wibDay(ms: number): number {
  return Math.floor((ms + WIB_OFFSET_MS) / DAY_MS);
}

/** The start (epoch ms) of the WIB day holding `ms`. */
export function wibDayStart(ms: number): number {
  return wibDay(ms) * DAY_MS - WIB_OFFSET_MS;
}

/** Whole seconds until the next midnight WIB (at least 1). */
export function secondsToWibMidnight(ms: number): number {
  return Math.max(1, Math.ceil((wibDayStart(ms) + DAY_MS - ms) / 1000));
}

const WIB_WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * A WIB wall-clock time as Indonesian bank-mutation services write it, without a zone
 * ("2026-11-28 14:05:00", seconds optional), as epoch ms; null unless it is a real calendar date and time.
 */
export function parseWibDateTime(text: unknown): number | null {
  const m = typeof text === 'string' ? WIB_WALL_CLOCK.exec(text.trim()) : null;
  if (!m) return null;
  const [y, mo, d, h, mi] = m.slice(1, 6).map(Number) as [number, number, number, number, number];
  const s = m[6] === undefined ? 0 : Number(m[6]);
  const utc = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(utc);
  // Date.UTC rolls 31 February into March and 24:00 into the next day: only a real date and time passes.
  if (
    check.getUTCFullYear() !== y ||
    check.getUTCMonth() !== mo - 1 ||
    check.getUTCDate() !== d ||
    h > 23 ||
    mi > 59 ||
    s > 59
  )
    return null;
  return utc - WIB_OFFSET_MS;
}
