import { AppError } from '../../domain/errors.js';
import {
  advanceFeed,
  clampFeedCursor,
  freshCursor,
  parseFeedCursor,
  type FeedCursor,
} from '../../domain/payment-feed.js';
import { canSeeMerchant } from '../../domain/viewer.js';
import type { Viewer } from '../../domain/viewer.js';
import { wibDay, wibDayStart } from '../../domain/wib.js';
import { merchantById } from '../../storage/queries/merchants.js';
import { paidEventsAfter } from '../../storage/queries/payment-feed.js';
import type { Deps } from '../deps.js';
import { feedPayment, type FeedPayment } from './feed-payment.js';

/** A day's paid events read at once; a counter with more in one WIB day is far beyond a soundbox's use. */
const DAY_LIMIT = 20_000;
/** The day's payments the page lists when it opens (the total counts them all). */
const RECENT = 50;

export interface DayTotals {
  live: { amount: number; count: number };
  test: { amount: number; count: number };
}

export interface FeedOpening {
  merchant: { id: string; name: string };
  /** Today (WIB), as days since the epoch. */
  day: number;
  /** Today's payments the page has already heard (not the fresh ones below). */
  totals: DayTotals;
  /** The last of those, oldest first. */
  recent: FeedPayment[];
  /** The page's cursor as the stream takes it up (held to today, see clampFeedCursor); null without one. */
  resumedAt: FeedCursor | null;
  /** Payments recorded since the page's cursor, to announce, each with the cursor after it. */
  fresh: Array<{ payment: FeedPayment; cursor: FeedCursor }>;
  /** Where the stream stands once the fresh ones are sent. */
  cursor: FeedCursor;
}

/**
 * Opens a soundbox's stream of a merchant's payments (issue 27, section 2). Without a cursor (a page just
 * loaded) everything recorded so far today is history: listed, counted, not announced. With one (a
 * reconnect), whatever was recorded today after it is fresh. Either way the read is the same one, of
 * today's (WIB) payments only: a cursor from an earlier day, or one made up (`after=0`), neither brings
 * back older payments (which a cashier may not see) nor costs more than a fresh open (issue 35, finding 3).
 * Another merchant's feed, or an unknown one, is merchant_not_found.
 */
export async function openPaymentFeed(
  deps: Deps,
  viewer: Viewer,
  merchantId: string,
  after: string | null,
): Promise<FeedOpening> {
  const merchant = canSeeMerchant(viewer, merchantId) ? await merchantById(deps.db, merchantId) : undefined;
  if (!merchant) throw new AppError('merchant_not_found', 'no such merchant', { param: 'merchant' });
  const now = deps.now();
  const dayStart = wibDayStart(now);
  const start = after === null ? null : clampFeedCursor(parseFeedCursor(after), dayStart, now);
  // The whole day, cursor or not: the totals count what the page heard before its cursor too.
  const rows = await paidEventsAfter(deps.db, merchantId, dayStart - 1, DAY_LIMIT);
  const truncated = rows.length === DAY_LIMIT;
  const moved = advanceFeed(start ?? freshCursor(rows, now), rows, now, truncated);
  const freshIds = new Set(moved.fresh.map((f) => f.row.id));
  const heardToday = rows.filter((r) => !freshIds.has(r.id)).map(feedPayment);
  const totals: DayTotals = { live: { amount: 0, count: 0 }, test: { amount: 0, count: 0 } };
  for (const p of heardToday) {
    totals[p.mode].amount += p.amount;
    totals[p.mode].count += 1;
  }
  return {
    merchant: { id: merchant.id, name: merchant.name },
    day: wibDay(now),
    totals,
    recent: heardToday.slice(-RECENT),
    resumedAt: start,
    fresh: moved.fresh.map((f) => ({ payment: feedPayment(f.row), cursor: f.cursor })),
    cursor: moved.next,
  };
}
