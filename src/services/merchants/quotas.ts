import type { Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { secondsToWibMidnight, wibDay } from '../../domain/wib.js';
import type { Tx } from '../../storage/executor.js';
import { countDailyCreate, countLinkCreate, dailyCreates, linkCreates, merchantQuota, setMerchantQuota } from '../../storage/queries/daily-creates.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import type { DailyLimit } from '../transactions/create-input.js';

export interface QuotaUsage {
  limit: number;
  used: number;
  remaining: number;
  /** Seconds until the count starts again (midnight WIB). */
  resetSeconds: number;
}

/** The merchant's daily create quota (null: none), cached for a few seconds. */
export async function quotaOf(deps: Deps, merchantId: string): Promise<number | null> {
  const now = performance.now();
  const cached = deps.state.quotas.get(merchantId, now);
  if (cached !== undefined) return cached;
  const quota = (await merchantQuota(deps.db, merchantId)) ?? null;
  deps.state.quotas.set(merchantId, quota, now);
  return quota;
}

/**
 * The daily count a create is held to: a payment link's create its merchant's links' cap
 * (PAYMENT_LINK_DAILY_CREATES), which anonymous payers may use up without touching the merchant's API
 * quota; any other create the merchant's API quota, if it has one.
 */
export async function dailyLimitOf(deps: Deps, merchantId: string, origin: 'api' | 'link'): Promise<DailyLimit | null> {
  if (origin === 'link') return { counter: 'link', limit: deps.config.paymentLinkDailyCreates };
  const quota = await quotaOf(deps, merchantId);
  return quota === null ? null : { counter: 'api', limit: quota };
}

function exceeded({ counter, limit }: DailyLimit, now: number): AppError {
  const seconds = secondsToWibMidnight(now);
  const what = counter === 'link' ? "this merchant's payment links may make" : 'this merchant may create';
  return new AppError('quota_exceeded', `${what} ${limit} transactions a day (WIB); the count starts again at midnight WIB`, {
    retryAfter: seconds,
  });
}

const countOf = (db: Deps['db'], merchantId: string, counter: DailyLimit['counter'], day: number) =>
  counter === 'link' ? linkCreates(db, merchantId, day) : dailyCreates(db, merchantId, day);

/** Refuses early, before any work (an acquirer's code), when today's count is already used up. */
export async function checkQuota(deps: Deps, merchantId: string, limit: DailyLimit): Promise<void> {
  const now = deps.now();
  if ((await countOf(deps.db, merchantId, limit.counter, wibDay(now))) >= limit.limit) throw exceeded(limit, now);
}

/**
 * Counts a create against its daily count inside its own database transaction; throws quota_exceeded
 * (which rolls the create back) when none is left. Exact under any concurrency and across instances.
 */
export async function consumeQuota(trx: Tx, merchantId: string, limit: DailyLimit, now: number): Promise<void> {
  const day = wibDay(now);
  const counted = limit.counter === 'link' ? await countLinkCreate(trx, merchantId, day, limit.limit) : await countDailyCreate(trx, merchantId, day, limit.limit);
  if (counted === null) throw exceeded(limit, now);
}

/** Today's use of a limited merchant's quota, or null when it has none. */
export async function quotaUsage(deps: Deps, merchantId: string): Promise<QuotaUsage | null> {
  const limit = await quotaOf(deps, merchantId);
  if (limit === null) return null;
  const now = deps.now();
  const used = await dailyCreates(deps.db, merchantId, wibDay(now));
  return { limit, used, remaining: Math.max(0, limit - used), resetSeconds: secondsToWibMidnight(now) };
}

/** An operator sets (or, with null, removes) a merchant's daily create quota; audited. */
export async function setDailyQuota(deps: Deps, merchantId: string, quota: number | null, actor: Actor): Promise<void> {
  if (quota !== null && (!Number.isInteger(quota) || quota < 0 || quota > 10_000_000)) {
    throw new AppError('invalid_parameter', 'the daily quota must be a whole number from 0 to 10000000, or unlimited', { param: 'quota' });
  }
  const now = deps.now();
  await deps.db.runInTransaction(async (trx) => {
    if (!(await setMerchantQuota(trx, merchantId, quota))) throw new AppError('merchant_not_found', `no merchant ${merchantId}`, { param: 'merchant' });
    await writeAudit(trx, { actor, action: 'merchant.quota', subjectType: 'merchant', subjectId: merchantId, details: { daily_create_quota: quota }, now });
  });
  deps.state.quotas.forget(merchantId);
}
