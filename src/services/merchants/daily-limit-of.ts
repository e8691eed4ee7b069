import type { Deps } from '../deps.js';
import type { DailyLimit } from '../transactions/create-input.js';

/**
 * The daily count a create is held to: a payment link's create its merchant's links' cap
 * (PAYMENT_LINK_DAILY_CREATES), which anonymous payers may use up without touching the merchant's API
 * quota; any other create the merchant's API quota (`apiQuota`, from quotaOf), if it has one.
 */
export function dailyLimitOf(deps: Deps, origin: 'api' | 'link', apiQuota: number | null): DailyLimit | null {
  if (origin === 'link') return { counter: 'link', limit: deps.config.paymentLinkDailyCreates };
  return apiQuota === null ? null : { counter: 'api', limit: apiQuota };
}
