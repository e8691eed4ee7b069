import { PrincipalCache } from './merchants/principal-cache.js';
import { QuotaCache } from './merchants/quota-cache.js';
import { CreateQueue } from './transactions/create-queue.js';

/**
 * What the services keep in memory between requests, beside the database: made once per process (or
 * per gateway in a test) and shared by every copy of its Deps, so nothing of it hides in module state.
 * (The database's own per-connection state, such as group commit, lives on the Database object.)
 */
export interface ServiceState {
  /** Plain creates of the current event-loop turn, made together (transactions/create-batch.ts). */
  creates: CreateQueue;
  /** Successful API-key lookups, reused for a few seconds (merchants/principal-cache.ts). */
  principals: PrincipalCache;
  /** Merchants' daily create quotas, reused for a few seconds (merchants/quota-cache.ts). */
  quotas: QuotaCache;
  /**
   * Ids of the keys used since the last flush (merchants/key-uses.ts): the API notes a use here, and a
   * loop writes them to api_keys.last_used_at once a minute, so no request waits for a write.
   */
  keyUses: Set<string>;
  /** Merchants known to be approved (approvals are never taken back): their payer e-mail is not checked again (merchants/payer-email.ts). */
  approvedMerchants: Set<string>;
}

export function newServiceState(): ServiceState {
  return { creates: new CreateQueue(), principals: new PrincipalCache(), quotas: new QuotaCache(), keyUses: new Set(), approvedMerchants: new Set() };
}
