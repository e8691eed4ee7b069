/**
 * Whether a merchant's live keys still wait for an operator: with LIVE_KEYS=approval a self-service
 * merchant is made unapproved, and its live keys answer 403 live_not_approved until an operator approves
 * it. The API refuses by this rule and the console's lists show "waiting for approval" by it, so a key is
 * never listed "active" while it is refused.
 */
export function liveKeysWait(liveApprovedAt: number | null | undefined, liveKeys: 'approval' | 'auto'): boolean {
  return liveApprovedAt == null && liveKeys === 'approval';
}
