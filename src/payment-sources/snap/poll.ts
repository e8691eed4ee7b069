// Query polling (qr-mpm-query): the fallback when an acquirer's notification never arrives.
import type { Deps } from '../../services/deps.js';
import {
  claimSnapPoll,
  deleteSnapExternalIdsBefore,
  deleteSnapPoll,
  deleteSnapTokensExpiredBy,
  dueSnapPolls,
  polledTransaction,
} from '../../storage/queries/snap.js';
import type { SnapPollsTable } from '../../storage/schema.js';
import { SnapClient } from './client.js';
import { outcomeOf } from './config.js';
import { FIRST_POLL_DELAY_MS } from './issue.js';
import { paymentFacts, recordSnapPayment } from './record.js';
import { snapSourceById } from './sources.js';
import { mapInLanes } from '../common.js';

export type PollResult = 'skipped' | 'pending' | 'paid' | 'stopped' | 'failed';

const BATCH = 50;
// Acquirers rate-limit; a few queries in flight keep a slow acquirer from stalling the whole batch.
const CONCURRENCY = 4;

/** Gap after the n-th poll: 10 s, 20 s, 40 s ... up to the cap (the first poll is 5 s after create). */
export function pollDelayMs(attempts: number, maxDelaySeconds: number): number {
  return Math.min(FIRST_POLL_DELAY_MS * 2 ** Math.min(attempts, 20), maxDelaySeconds * 1000);
}

/** One round over the due polls; safe beside other processes doing the same. */
export async function pollDueSnapQueries(deps: Deps): Promise<Record<PollResult, number>> {
  const counts: Record<PollResult, number> = { skipped: 0, pending: 0, paid: 0, stopped: 0, failed: 0 };
  const due = await dueSnapPolls(deps.db, deps.now(), BATCH);
  await mapInLanes(due, CONCURRENCY, async (row) => {
    try {
      counts[await pollOne(deps, row)] += 1;
    } catch (err) {
      counts.failed += 1;
      deps.logger.warn({ err, trxid: row.transaction_id, source: row.source_id }, 'SNAP query poll failed; will retry');
    }
  });
  return counts;
}

async function pollOne(deps: Deps, row: SnapPollsTable): Promise<PollResult> {
  const now = deps.now();
  const attempts = row.attempts + 1;
  // The claim: whoever moves next_poll_at from the value it read owns this poll; the new value is also
  // the next schedule, so a process that dies mid-poll costs one gap, not a stuck row.
  const next = { attempts, nextPollAt: now + pollDelayMs(attempts, deps.config.snapPollMaxDelaySeconds) };
  if (!(await claimSnapPoll(deps.db, row.transaction_id, row.next_poll_at, next))) return 'skipped';

  const stop = async (): Promise<PollResult> => {
    await deleteSnapPoll(deps.db, row.transaction_id);
    return 'stopped';
  };
  const tx = await polledTransaction(deps.db, row.transaction_id);
  // Expired transactions are still asked about until stop_after: a late payment marks them paid_late.
  if (
    !tx ||
    tx.status === 'paid' ||
    tx.status === 'cancelled' ||
    tx.acquirer_reference === null ||
    now > row.stop_after
  )
    return stop();
  const source = await snapSourceById(deps, row.source_id);
  if (!source) return stop();

  const answer = await new SnapClient(source, deps).query({
    partnerReferenceNo: tx.id,
    referenceNo: tx.acquirer_reference,
  });
  const outcome = outcomeOf(source.config, answer.latestTransactionStatus);
  if (outcome === 'paid') {
    const result = await recordSnapPayment(deps, source, tx, paymentFacts(answer.body), { query: answer.body });
    deps.logger.info({ trxid: tx.id, source: source.id, outcome: result.outcome }, 'SNAP query found a payment');
    return 'paid';
  }
  // A cancelled code can no longer be paid; a failed attempt can be retried by the payer, so keep asking.
  if (outcome === 'cancelled') return stop();
  return 'pending';
}

/** Drops tokens past expiry and X-EXTERNAL-IDs older than SNAP's one-day uniqueness window. */
export async function snapHousekeeping(deps: Deps): Promise<void> {
  const now = deps.now();
  await deleteSnapTokensExpiredBy(deps.db, now);
  await deleteSnapExternalIdsBefore(deps.db, now - 2 * 86_400_000);
}
