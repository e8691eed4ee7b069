import type { Deps } from '../deps.js';
import type { DailyLimit } from '../transactions/create-input.js';
import { quotaOf } from './quota-of.js';

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
