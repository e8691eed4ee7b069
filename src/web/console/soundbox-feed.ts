// What one open soundbox stream keeps and sends (issue 27, section 2): its cursor, the day's totals, and
// the payments it has not sent yet, read again whenever the paid watch says something may have changed.
import { AppError } from '../../domain/errors.js';
import { formatFeedCursor, type FeedCursor } from '../../domain/payment-feed.js';
import { formatRupiah } from '../../domain/money.js';
import { wibDay } from '../../domain/wib.js';
import { announcementText } from '../../presentation/announce.js';
import { formatTime } from '../../presentation/format.js';
import { translator, type Lang } from '../../presentation/messages.js';
import type { Deps } from '../../services/deps.js';
import type { FeedPayment } from '../../services/soundbox/feed-payment.js';
import type { DayTotals, FeedOpening } from '../../services/soundbox/open-payment-feed.js';
import { readPaymentFeed } from '../../services/soundbox/read-payment-feed.js';
import type { SoundboxStream } from './soundbox-stream.js';
import { words } from './pages/soundbox.words.js';

/** A payment as the page's script shows it: every text already in the page's language. */
export interface ShownPayment {
  trxid: string;
  amount: string;
  time: string;
  ref: string | null;
  issuer: string | null;
  test: boolean;
  late: boolean;
}

export interface ShownTotals {
  today: string;
  count: string;
  /** Empty when there was no sandbox payment today. */
  test: string;
}

const zero = (): DayTotals => ({ live: { amount: 0, count: 0 }, test: { amount: 0, count: 0 } });

export class SoundboxFeed {
  private cursor: FeedCursor;
  private day: number;
  private totals: DayTotals;
  private reading = false;
  private again = false;

  constructor(
    private readonly deps: Deps,
    private readonly stream: SoundboxStream,
    private readonly merchantId: string,
    private readonly lang: Lang,
    opening: FeedOpening,
  ) {
    this.cursor = opening.cursor;
    this.day = opening.day;
    this.totals = opening.totals;
  }

  /** The opening's events: the day so far (listed, not announced), then what came since the page's cursor. */
  start(opening: FeedOpening): void {
    const first = opening.fresh[0];
    // Until the fresh payments are sent, the page stands where it came from (held to today).
    const position = formatFeedCursor(first && opening.resumedAt !== null ? opening.resumedAt : opening.cursor);
    this.stream.send(
      'hello',
      { totals: this.shownTotals(), recent: opening.recent.map((p) => this.shown(p)) },
      position,
    );
    for (const { payment, cursor } of opening.fresh) this.sendPayment(payment, cursor);
  }

  /** Something may have changed: read after the cursor, once at a time, again if woken meanwhile. */
  wake(): void {
    if (this.stream.isClosed) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    void this.pump();
  }

  /** The heartbeat: a new WIB day starts its totals afresh; a ping lets the page see the stream is alive. */
  tick(now: number): void {
    const today = wibDay(now);
    if (today > this.day) {
      this.day = today;
      this.totals = zero();
      this.stream.send('day', { totals: this.shownTotals() });
    }
    this.stream.send('ping', {});
  }

  /**
   * The server cannot reach its database: the page is told so (it says payments cannot be recorded just
   * now, rather than "Connected") and reconnects after its last event, which re-reads the day once the
   * database answers again.
   */
  trouble(): void {
    this.stream.send('trouble', {});
    this.stream.close();
  }

  private async pump(): Promise<void> {
    try {
      do {
        this.again = false;
        const read = await readPaymentFeed(this.deps, this.merchantId, this.cursor);
        if (this.stream.isClosed) return;
        for (const { payment, cursor } of read.fresh) this.sendPayment(payment, cursor);
        this.cursor = read.cursor;
        // A full read may have left more behind.
        if (read.fresh.length > 0) this.again = true;
      } while (this.again && !this.stream.isClosed);
    } catch (err) {
      // The page reconnects after its last event and reads from there: nothing is lost by ending here.
      this.deps.logger.warn({ err }, 'soundbox: reading payments failed; ending the stream for the page to reconnect');
      // A read refused because the database is out of reach says so, as the heartbeat's check does: ended
      // silently, the page would say "reconnecting" for as long as the database is away (its reconnects
      // are refused before any stream opens to tell it why). Seen when a wake-up came before the check.
      if (err instanceof AppError && (err.code === 'database_unavailable' || err.code === 'storage_unavailable'))
        this.trouble();
      else this.stream.close();
    } finally {
      this.reading = false;
    }
  }

  private sendPayment(payment: FeedPayment, cursor: FeedCursor): void {
    let newDay = false;
    if (payment.day > this.day) {
      this.day = payment.day;
      this.totals = zero();
      newDay = true;
    }
    if (payment.day === this.day) {
      this.totals[payment.mode].amount += payment.amount;
      this.totals[payment.mode].count += 1;
    }
    const data = {
      payment: this.shown(payment),
      today: payment.day === this.day,
      newDay,
      say: announcementText(payment.amount, this.lang),
      totals: this.shownTotals(),
    };
    this.stream.send('payment', data, formatFeedCursor(cursor));
  }

  private shown(p: FeedPayment): ShownPayment {
    return {
      trxid: p.trxid,
      amount: formatRupiah(p.amount),
      time: formatTime(p.recordedAt, this.lang),
      ref: p.ref,
      issuer: p.issuer,
      test: p.mode === 'test',
      late: p.late,
    };
  }

  private shownTotals(): ShownTotals {
    const t = translator(words, this.lang);
    const count = (n: number) => (n === 1 ? t('countOne') : t('count', { n }));
    const { live, test } = this.totals;
    return {
      today: formatRupiah(live.amount),
      count: count(live.count),
      test: test.count === 0 ? '' : t('testTotal', { amount: formatRupiah(test.amount), count: count(test.count) }),
    };
  }
}
