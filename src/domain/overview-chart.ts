// The overview's chart of paid amounts: which WIB days it shows.
import { wibDayStart } from './wib.js';

export const DAY_MS = 86_400_000;
export const CHART_DAYS = 30;

/** The start of the chart's window: midnight WIB, CHART_DAYS - 1 days before today's. */
export function chartStart(now: number): number {
  return wibDayStart(now) - (CHART_DAYS - 1) * DAY_MS;
}
