/**
 * Merchants' daily create quotas as this process last read them, for a few seconds: every create asks,
 * and most merchants have none. A quota set by this process applies at once (the entry is dropped); one
 * set by another process (the CLI, another instance) within QUOTA_CACHE_MS. One per ServiceState.
 */
export const QUOTA_CACHE_MS = 5000;
const QUOTA_CACHE_MAX = 10_000;

export class QuotaCache {
  private entries = new Map<string, { quota: number | null; until: number }>();

  get(merchantId: string, now: number): number | null | undefined {
    const hit = this.entries.get(merchantId);
    return hit && hit.until > now ? hit.quota : undefined;
  }

  set(merchantId: string, quota: number | null, now: number): void {
    if (this.entries.size >= QUOTA_CACHE_MAX) this.entries.clear();
    this.entries.set(merchantId, { quota, until: now + QUOTA_CACHE_MS });
  }

  forget(merchantId: string): void {
    this.entries.delete(merchantId);
  }
}
