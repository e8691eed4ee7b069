import type { Deps } from '../../services/deps.js';
import { recordPayment } from '../../services/payments/record-payment.js';
import { dueFeedSources, leaseFeedPoll, saveFeedPoll } from '../../storage/queries/sources.js';
import type { PaymentSourcesTable } from '../../storage/schema.js';
import { parseRetryAfter as parseRetryAfterWithin } from '../../domain/retry-after.js';
import { guardedRequest } from '../../net/guarded-get.js';
import { mapInLanes } from '../common.js';
import { FeedFormatError, parseFeed } from './parse.js';
import {
  feedContentType,
  readFeedConfig,
  readFeedState,
  type FeedConfig,
  type FeedMethod,
  type FeedState,
} from './setup.js';

/** Entry ids remembered per feed: more than a feed's window holds, small enough to rewrite each poll. */
const SEEN_LIMIT = 1000;
const BODY_LIMIT_BYTES = 2 * 1024 * 1024;
/** Feeds polled at once by one process: a hanging feed must not hold up the others. */
const PARALLEL = 4;
/** The longest Retry-After honoured as given; a feed asking for more is asked again after a day. */
const MAX_RETRY_AFTER_MS = 86_400_000;

/** How a feed is fetched: the guarded request unless a test hands in its own. */
export type FeedFetch = (
  url: string,
  init: {
    method: FeedMethod;
    headers: Record<string, string>;
    body: string | null;
    signal: AbortSignal;
    redirect: 'manual';
  },
) => Promise<Response>;

export interface PollOptions {
  fetch?: FeedFetch;
}

export interface PollSummary {
  sourceId: string;
  ok: boolean;
  recorded: number;
  matched: number;
  unmatched: number;
  skipped: number;
  error: string | null;
  nextPollAt: number;
}

class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterMs: number | null,
  ) {
    // A feed that moved is told to its operator, never followed: a redirect could point anywhere,
    // the gateway's own network included.
    super(
      status >= 300 && status < 400
        ? `the feed answered HTTP ${status} (a redirect, not followed)`
        : `the feed answered HTTP ${status}`,
    );
  }
}

/**
 * Polls every enabled feed whose time has come. Each poll is claimed first with a conditional update
 * of next_poll_at that also serves as a lease, so several processes may run this at once and a feed is
 * still fetched by one of them at a time; a crashed poller's lease just runs out.
 */
export async function pollDueFeeds(deps: Deps, options: PollOptions = {}): Promise<PollSummary[]> {
  const now = deps.now();
  const due = await dueFeedSources(deps.db, now, 50);
  const results = await mapInLanes(due, PARALLEL, (row) => claimAndPoll(deps, row, options));
  return results.filter((s): s is PollSummary => s !== null);
}

async function claimAndPoll(deps: Deps, row: PaymentSourcesTable, options: PollOptions): Promise<PollSummary | null> {
  const now = deps.now();
  const lease = now + deps.config.feedTimeoutMs + 60_000;
  if (!(await leaseFeedPoll(deps.db, row.id, now, lease))) return null;
  return pollFeed(deps, row, lease, options);
}

async function pollFeed(
  deps: Deps,
  row: PaymentSourcesTable,
  lease: number,
  options: PollOptions,
): Promise<PollSummary> {
  const config = readFeedConfig(row);
  const state = readFeedState(row.state);
  const log = deps.logger.child({ source: row.id });
  const summary: PollSummary = {
    sourceId: row.id,
    ok: false,
    recorded: 0,
    matched: 0,
    unmatched: 0,
    skipped: 0,
    error: null,
    nextPollAt: 0,
  };
  const recordedIds: string[] = [];
  let retryAfterMs: number | null = null;
  try {
    // The webhooks' SSRF guard and its setting: a feed URL is typed by a merchant or operator too.
    const fetchImpl: FeedFetch =
      options.fetch ?? ((url, init) => guardedRequest(url, init, deps.config.webhookAllowNetworks));
    const body = await fetchFeed(config, deps.config.feedTimeoutMs, fetchImpl);
    const parsed = parseFeed(body, config.mapping);
    summary.skipped = parsed.skipped.length;
    // A feed full of junk would otherwise log the same lines at every poll: a few examples and a count.
    if (parsed.skipped.length > 0)
      log.warn({ count: parsed.skipped.length, examples: parsed.skipped.slice(0, 5) }, 'feed entries skipped');
    const seen = new Set(state.seen);
    const fresh = parsed.entries.filter((e) => !seen.has(e.id)).sort((a, b) => a.paidAt - b.paidAt);
    // Handed over in one turn, the page's entries are recorded together in one unit of work
    // (record-payment.ts), in this order; every one is waited for before a failure is told.
    const recorded = await Promise.allSettled(
      fresh.map((entry) =>
        recordPayment(deps, {
          merchantId: row.merchant_id,
          mode: config.mode,
          source: row.id,
          sourcePaymentId: entry.id,
          amount: entry.amount,
          paidAt: entry.paidAt,
          reference: entry.reference,
          payerName: entry.payer,
          issuer: entry.issuer,
          raw: entry.raw,
        }),
      ),
    );
    for (const [i, result] of recorded.entries()) {
      if (result.status === 'rejected') throw result.reason;
      recordedIds.push(fresh[i]!.id);
      if (result.value.outcome === 'duplicate') continue;
      summary.recorded += 1;
      if (result.value.outcome === 'matched') summary.matched += 1;
      else summary.unmatched += 1;
    }
    summary.ok = true;
  } catch (err) {
    summary.error = describeError(err);
    if (err instanceof HttpStatusError) retryAfterMs = err.retryAfterMs;
  }

  const now = deps.now();
  const next: FeedState = {
    seen: [...recordedIds.reverse(), ...state.seen.filter((id) => !recordedIds.includes(id))].slice(0, SEEN_LIMIT),
    failures: summary.ok ? 0 : state.failures + 1,
    lastError: summary.ok ? null : summary.error,
    lastPolledAt: now,
    lastSuccessAt: summary.ok ? now : state.lastSuccessAt,
  };
  summary.nextPollAt = now + delayMs(config, next.failures, retryAfterMs, deps.config.feedMaxBackoffSeconds * 1000);
  // Fenced by the lease: if this poll overran it and another process took the feed over, its newer
  // state wins and this one is dropped (the payments themselves are already safely recorded).
  await saveFeedPoll(deps.db, row.id, lease, { state: JSON.stringify(next), nextPollAt: summary.nextPollAt, now });
  if (summary.ok) {
    if (summary.recorded > 0) log.info({ matched: summary.matched, unmatched: summary.unmatched }, 'feed polled');
  } else {
    log.warn(
      { error: summary.error, failures: next.failures, next_poll_at: new Date(summary.nextPollAt).toISOString() },
      'feed poll failed',
    );
  }
  return summary;
}

/**
 * The wait before the next poll: the interval when all is well; after failures the interval doubled
 * per consecutive failure, capped; after a 429 at least what Retry-After asked.
 */
export function delayMs(
  config: Pick<FeedConfig, 'intervalSeconds'>,
  failures: number,
  retryAfterMs: number | null,
  maxBackoffMs: number,
): number {
  const interval = config.intervalSeconds * 1000;
  if (failures === 0) return interval;
  const backoff = Math.min(interval * 2 ** Math.min(failures, 20), Math.max(maxBackoffMs, interval));
  if (retryAfterMs !== null) return Math.max(interval, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
  return backoff;
}

async function fetchFeed(config: FeedConfig, timeoutMs: number, fetchImpl: FeedFetch): Promise<unknown> {
  const signal = AbortSignal.timeout(timeoutMs);
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'qris-gateway feed poller' };
  // The operator's own headers (an account's token) win over these defaults, whatever their case.
  for (const [name, value] of Object.entries(config.headers)) {
    for (const key of Object.keys(headers)) if (key === name.toLowerCase()) delete headers[key];
    headers[name] = value;
  }
  const contentType = feedContentType(config);
  if (contentType !== null && !Object.keys(config.headers).some((name) => name.toLowerCase() === 'content-type'))
    headers['content-type'] = contentType;
  const res = await fetchImpl(config.url, {
    method: config.method,
    headers,
    body: config.method === 'POST' ? config.body : null,
    signal,
    redirect: 'manual',
  });
  if (res.status === 429 || res.status === 503) {
    await res.body?.cancel().catch(() => {});
    throw new HttpStatusError(res.status, parseRetryAfter(res.headers.get('retry-after'), Date.now()));
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw new HttpStatusError(res.status, null);
  }
  const text = await readCapped(res, BODY_LIMIT_BYTES);
  try {
    return JSON.parse(text);
  } catch {
    throw new FeedFormatError('the feed did not answer with JSON');
  }
}

async function readCapped(res: Response, limit: number): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await res.body?.cancel().catch(() => {});
    throw new FeedFormatError(`the feed's answer is larger than ${limit} bytes`);
  }
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new FeedFormatError(`the feed's answer is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A feed's `Retry-After` as milliseconds from now, at most a day; null when absent or unreadable. */
export const parseRetryAfter = (value: string | null, now: number): number | null =>
  parseRetryAfterWithin(value, now, MAX_RETRY_AFTER_MS);

function describeError(err: unknown): string {
  if (err instanceof HttpStatusError || err instanceof FeedFormatError) return err.message;
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
    return 'the feed did not answer in time';
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err instanceof Error ? err.message : String(err)}${cause}`.slice(0, 300);
}
