/**
 * Where a merchant's live keys stand. With LIVE_KEYS=approval a self-service merchant is made
 * unapproved: its live keys answer 403 live_not_approved while it waits for an operator, and 403
 * live_rejected once an operator rejected it (until an operator approves it, or asks again, which puts it
 * back in the queue). The API refuses by this rule and the console's lists show "waiting for approval"
 * or "rejected" by it, so a key is never listed "active" while it is refused.
 */
export type LiveKeysState = 'approved' | 'waiting' | 'rejected';

export interface LiveApprovalFields {
  live_approved_at?: number | null | undefined;
  live_rejected_at?: number | null | undefined;
}

export function liveKeysState(merchant: LiveApprovalFields, liveKeys: 'approval' | 'auto'): LiveKeysState {
  // With LIVE_KEYS=auto nobody waits for an operator, so nobody is refused by one either.
  if (merchant.live_approved_at != null || liveKeys === 'auto') return 'approved';
  return merchant.live_rejected_at != null ? 'rejected' : 'waiting';
}

/** Whether a merchant's live keys are refused for now (waiting or rejected). */
export function liveKeysRefused(merchant: LiveApprovalFields, liveKeys: 'approval' | 'auto'): boolean {
  return liveKeysState(merchant, liveKeys) !== 'approved';
}
