import { advanceFeed, type FeedCursor } from '../../domain/payment-feed.js';
import { paidEventsAfter } from '../../storage/queries/payment-feed.js';
import type { Deps } from '../deps.js';
import { feedPayment, type FeedPayment } from './feed-payment.js';

/** Rows read per wake-up; more are read at once by the next round (the caller reads again while any come). */
const READ_LIMIT = 500;

export interface FeedRead {
  fresh: Array<{ payment: FeedPayment; cursor: FeedCursor }>;
  cursor: FeedCursor;
}

/**
 * The payments an open soundbox has not heard yet: the merchant's paid events above its cursor that the
 * cursor does not list (see domain/payment-feed.ts). The merchant was checked when the feed opened.
 */
export async function readPaymentFeed(deps: Deps, merchantId: string, cursor: FeedCursor): Promise<FeedRead> {
  const now = deps.now();
  const rows = await paidEventsAfter(deps.db, merchantId, cursor.watermark, READ_LIMIT);
  const moved = advanceFeed(cursor, rows, now, rows.length === READ_LIMIT);
  return { fresh: moved.fresh.map((f) => ({ payment: feedPayment(f.row), cursor: f.cursor })), cursor: moved.next };
}
