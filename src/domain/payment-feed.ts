import { AppError } from './errors.js';

// Where a soundbox's stream of paid transactions stands (issue 27, section 2), sent as each event's id so
// a reconnect resumes exactly after what the page already heard (Last-Event-ID).
//
// The events are the outbox's `transaction.paid` rows, ordered by (created_at, id). created_at is taken
// before the row's database transaction commits, so a row can become visible after a later one was
// already read: a single "last id" cursor would skip it forever. The cursor is therefore a watermark
// plus the ids already heard above it: everything at or below the watermark has been heard, and a read
// after the cursor takes every row above it that is not listed. The watermark trails the read time by
// FEED_GRACE_MS, the longest a payment's commit is assumed to lag its created_at, so a late commit is
// still above it when it shows. Watermarks only rise, so ids compare in order.

/** How long a row's commit may lag its created_at and still be heard. */
export const FEED_GRACE_MS = 60_000;
/** Ids kept above the watermark; past this (more payments in FEED_GRACE_MS) the watermark rises. */
export const MAX_SEEN = 64;

export interface FeedCursor {
  /** Every row with created_at at or below this has been heard. */
  watermark: number;
  /** Rows above the watermark that have been heard. */
  seen: readonly string[];
}

export interface FeedRow {
  id: string;
  created_at: number;
}

const EVENT_ID = /^evt_[0-9A-Za-z]{1,64}$/;

export function formatFeedCursor(cursor: FeedCursor): string {
  return [String(cursor.watermark), ...cursor.seen].join('.');
}

/** A cursor this gateway did not make is an `invalid_parameter` (the page then starts afresh). */
export function parseFeedCursor(text: string): FeedCursor {
  const parts = text.length <= 15 + MAX_SEEN * 70 ? text.split('.') : [];
  const [head, ...seen] = parts;
  if (
    head === undefined ||
    !/^[0-9]{1,15}$/.test(head) ||
    seen.length > MAX_SEEN ||
    !seen.every((id) => EVENT_ID.test(id))
  ) {
    throw new AppError('invalid_parameter', 'the stream position is not one this gateway sent', { param: 'after' });
  }
  return { watermark: Number(head), seen: [...new Set(seen)] };
}

/**
 * A cursor a page sent back, held to what a soundbox may hear: a page always stands at least at the
 * start of the WIB day it opens in (`dayStart`), so no position, however old or forged (`after=0`), brings
 * back an earlier day's payments; and at most at `now`, so one from the future hears from now on rather
 * than nothing until then. The ids heard above the watermark stay: at worst they name rows not yet heard.
 */
export function clampFeedCursor(cursor: FeedCursor, dayStart: number, now: number): FeedCursor {
  const floor = dayStart - 1;
  return { watermark: Math.min(Math.max(cursor.watermark, floor), Math.max(now, floor)), seen: cursor.seen };
}

/** The cursor of a page that has heard nothing yet, but has been shown every row read so far. */
export function freshCursor(rows: readonly FeedRow[], now: number, graceMs = FEED_GRACE_MS): FeedCursor {
  return advanceFeed(
    { watermark: now - graceMs, seen: rows.filter((r) => r.created_at > now - graceMs).map((r) => r.id) },
    rows,
    now,
    false,
    graceMs,
  ).next;
}

export interface FeedAdvance<R extends FeedRow> {
  /** Rows not heard before, in order, each with the cursor to send with it. */
  fresh: Array<{ row: R; cursor: FeedCursor }>;
  /** The cursor once all of them are heard. */
  next: FeedCursor;
}

/**
 * What a read brings. `rows` are every row with created_at above `cursor.watermark`, ordered by
 * (created_at, id), read starting at `readStart`; `truncated` says the read stopped at its limit, so
 * rows past the last one are unknown.
 */
export function advanceFeed<R extends FeedRow>(
  cursor: FeedCursor,
  rows: readonly R[],
  readStart: number,
  truncated: boolean,
  graceMs = FEED_GRACE_MS,
): FeedAdvance<R> {
  const heard = new Set(cursor.seen);
  const times = new Map<string, number>();
  for (const row of rows) times.set(row.id, row.created_at);
  // Rows committed by readStart - grace are assumed all in this read; past a truncated read's last row nothing is known.
  const last = rows.at(-1);
  const horizon = truncated && last ? Math.min(readStart - graceMs, last.created_at - 1) : readStart - graceMs;
  // A heard id this read did not return is kept while it may still lie above the watermark.
  const keep = (id: string, watermark: number): boolean => {
    const at = times.get(id);
    return at === undefined ? truncated : at > watermark;
  };
  const cursorAt = (watermark: number): FeedCursor => {
    let seen = [...heard].filter((id) => keep(id, watermark));
    if (seen.length > MAX_SEEN) {
      // Oldest first; raising the watermark to the newest dropped row frees its place.
      seen.sort((a, b) => (times.get(a) ?? Infinity) - (times.get(b) ?? Infinity));
      const dropped = seen.slice(0, seen.length - MAX_SEEN);
      watermark = Math.max(watermark, ...dropped.map((id) => times.get(id) ?? watermark));
      seen = seen.filter((id) => keep(id, watermark)).slice(-MAX_SEEN);
    }
    return { watermark, seen };
  };
  const fresh: FeedAdvance<R>['fresh'] = [];
  for (const row of rows) {
    if (row.created_at <= cursor.watermark || heard.has(row.id)) continue;
    heard.add(row.id);
    // Below this row, only rows past the horizon can still be unheard; rows of its own time after it may be.
    fresh.push({ row, cursor: cursorAt(Math.max(cursor.watermark, Math.min(horizon, row.created_at - 1))) });
  }
  return { fresh, next: cursorAt(Math.max(cursor.watermark, horizon)) };
}
