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
