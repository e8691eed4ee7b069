import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import {
  advanceFeed,
  clampFeedCursor,
  FEED_GRACE_MS,
  formatFeedCursor,
  freshCursor,
  MAX_SEEN,
  parseFeedCursor,
  type FeedCursor,
  type FeedRow,
} from '../../src/domain/payment-feed.js';

const byOrder = (a: FeedRow, b: FeedRow) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

describe("the soundbox feed's cursor", () => {
  it('reads back what it wrote', () => {
    const cursor = { watermark: 1_700_000_000_000, seen: ['evt_a1', 'evt_B2'] };
    expect(parseFeedCursor(formatFeedCursor(cursor))).toEqual(cursor);
    expect(parseFeedCursor('5')).toEqual({ watermark: 5, seen: [] });
  });

  it('refuses a position it did not make, naming the parameter', () => {
    for (const bad of ['', 'x', '1.2', '1.evt_', `1.${'evt_a.'.repeat(MAX_SEEN + 1)}evt_a`, '-1', '1.evt_a b']) {
      let error: unknown;
      try {
        parseFeedCursor(bad);
      } catch (err) {
        error = err;
      }
      expect(error, bad).toBeInstanceOf(AppError);
      expect((error as AppError).param).toBe('after');
    }
  });

  it("holds a page's position to the day it opens in: never before its start, never past now (issue 35, finding 3)", () => {
    const dayStart = 1_700_000_000_000;
    const now = dayStart + 3_600_000;
    const seen = ['evt_a1'];
    // Made up, or from an earlier day: the start of today, where a fresh page reads from.
    expect(clampFeedCursor({ watermark: 0, seen }, dayStart, now)).toEqual({ watermark: dayStart - 1, seen });
    expect(clampFeedCursor({ watermark: dayStart - 86_400_000, seen: [] }, dayStart, now).watermark).toBe(dayStart - 1);
    // Today's, as the stream sent it: unchanged.
    expect(clampFeedCursor({ watermark: dayStart + 5, seen }, dayStart, now)).toEqual({
      watermark: dayStart + 5,
      seen,
    });
    expect(clampFeedCursor({ watermark: dayStart - 1, seen }, dayStart, now)).toEqual({
      watermark: dayStart - 1,
      seen,
    });
    // From the future: heard up to now, so what comes next is heard.
    expect(clampFeedCursor({ watermark: 999_999_999_999_999, seen }, dayStart, now)).toEqual({ watermark: now, seen });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999_999_999_999_999 }),
        fc.integer({ min: 0, max: 86_399_999 }),
        (watermark, into) => {
          const clamped = clampFeedCursor({ watermark, seen: [] }, dayStart, dayStart + into).watermark;
          return (
            clamped >= dayStart - 1 &&
            clamped <= dayStart + into &&
            (watermark < dayStart - 1 || watermark > dayStart + into || clamped === watermark)
          );
        },
      ),
    );
  });

  it('hears every row exactly once, whatever order rows commit in within the grace and wherever the page reconnects', () => {
    // Each row: its time, and how long after that time its commit becomes visible (up to the grace).
    const row = fc.record({
      at: fc.integer({ min: 0, max: 200_000 }),
      lag: fc.integer({ min: 0, max: FEED_GRACE_MS }),
    });
    fc.assert(
      fc.property(
        fc.array(row, { maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 260_000 }), { minLength: 1, maxLength: 30 }),
        fc.boolean(),
        (specs, readTimes, resumeEachRead) => {
          const rows = specs.map((s, i) => ({
            id: `evt_${String(i).padStart(3, '0')}`,
            created_at: 1_000_000 + s.at,
            visibleAt: 1_000_000 + s.at + s.lag,
          }));
          const times = [...readTimes.map((t) => 1_000_000 + t), 1_000_000 + 400_000].sort((a, b) => a - b);
          const heard: string[] = [];
          // Rows visible before the page opened are its history.
          const history = rows.filter((r) => r.visibleAt <= times[0]! - 1).map((r) => r.id);
          let cursor: FeedCursor = freshCursor(
            rows.filter((r) => r.visibleAt <= times[0]! - 1).sort(byOrder),
            times[0]! - 1,
          );
          for (const now of times) {
            const visible = rows.filter((r) => r.visibleAt <= now && r.created_at > cursor.watermark).sort(byOrder);
            const moved = advanceFeed(cursor, visible, now, false);
            heard.push(...moved.fresh.map((f) => f.row.id));
            // A page that reconnects resumes from the last event's id (or where it stood).
            cursor = resumeEachRead
              ? parseFeedCursor(formatFeedCursor(moved.fresh.at(-1)?.cursor ?? cursor))
              : moved.next;
          }
          const everything = [...history, ...heard].sort();
          expect(everything).toEqual(rows.map((r) => r.id).sort());
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rises past old rows, keeping only what is above its watermark', () => {
    const now = 10_000_000;
    const rows = [
      { id: 'evt_old', created_at: now - FEED_GRACE_MS - 5 },
      { id: 'evt_new', created_at: now - 10 },
    ];
    const moved = advanceFeed({ watermark: 0, seen: [] }, rows, now, false);
    expect(moved.fresh.map((f) => f.row.id)).toEqual(['evt_old', 'evt_new']);
    expect(moved.next).toEqual({ watermark: now - FEED_GRACE_MS, seen: ['evt_new'] });
    // The cursor sent with the first row still lets the second be read after it.
    expect(moved.fresh[0]!.cursor.watermark).toBeLessThan(rows[1]!.created_at);
  });
});
