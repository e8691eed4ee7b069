import type { ParsedQris } from '../domain/qris/index.js';
import type { UniqueCodeMode } from '../domain/unique-codes.js';
import { type BackupStats, newBackupStats } from './backups/backup-stats.js';
import { PrincipalCache } from './merchants/principal-cache.js';
import { QuotaCache } from './merchants/quota-cache.js';
import { CreateQueue } from './transactions/create-queue.js';
import { ReportQueue } from './payments/report-queue.js';
import { SourceCache } from './sources/source-cache.js';
import { StatusBus } from './transactions/status-bus.js';

/**
 * What the services keep in memory between requests, beside the database: made once per process (or
 * per gateway in a test) and shared by every copy of its Deps, so nothing of it hides in module state.
 * (The database's own per-connection state, such as group commit, lives on the Database object.)
 */
export interface ServiceState {
  /** Plain creates of the current event-loop turn, made together (transactions/create-batch.ts). */
  creates: CreateQueue;
  /** Payment reports of the current event-loop turn, recorded together (payments/record-payment.ts). */
  payments: ReportQueue;
  /** Successful API-key lookups, reused for a few seconds (merchants/principal-cache.ts). */
  principals: PrincipalCache;
  /** Enabled payment sources' rows, reused by inbound posts for a few seconds (sources/source-cache.ts). */
  sources: SourceCache;
  /** Merchants' daily create quotas, reused for a few seconds (merchants/quota-cache.ts). */
  quotas: QuotaCache;
  /**
   * Ids of the keys used since the last flush (merchants/key-uses.ts): the API notes a use here, and a
   * loop writes them to api_keys.last_used_at once a minute, so no request waits for a write.
   */
  keyUses: Set<string>;
  /** Merchants known to be approved (approvals are never taken back): their payer e-mail is not checked again (merchants/payer-email.ts). */
  approvedMerchants: Set<string>;
  /**
   * Merchants' static QRIS codes, parsed (a stored code never changes), with how their unique code makes
   * the total, which a merchant may change: read again after `until` (transactions/static-qris-issuer.ts).
   */
  staticCodes: Map<string, StaticCode>;
  /** Status changes for the live checkout pages (transactions/status-bus.ts). */
  statusBus: StatusBus;
  /** The payment source kinds' own caches (SNAP's sources and tokens), typed by their kind's folder. */
  kinds: KindCaches;
  /** This process's scheduled backups, for /metrics (backups/scheduled-backup.ts). */
  backups: BackupStats;
}

/** A merchant's parsed static QRIS and unique-code mode, as the static-QRIS issuer keeps them. */
export interface StaticCode {
  code: ParsedQris;
  uniqueCodeMode: UniqueCodeMode;
  /** deps.now() after which the mode is read again. */
  until: number;
}

/**
 * Where a payment source kind finds its cache in a ServiceState. The kind declares the slot once (a
 * constant beside its code, since services never import a source) and gets the same cache back for every
 * call with the same state, made empty on first use.
 */
export interface CacheSlot<T> {
  readonly make: () => T;
}

export class KindCaches {
  readonly #made = new Map<CacheSlot<unknown>, unknown>();

  get<T>(slot: CacheSlot<T>): T {
    let cache = this.#made.get(slot) as T | undefined;
    if (cache === undefined) {
      cache = slot.make();
      this.#made.set(slot, cache);
    }
    return cache;
  }
}

export function newServiceState(): ServiceState {
  return {
    creates: new CreateQueue(),
    payments: new ReportQueue(),
    principals: new PrincipalCache(),
    sources: new SourceCache(),
    quotas: new QuotaCache(),
    keyUses: new Set(),
    approvedMerchants: new Set(),
    staticCodes: new Map(),
    statusBus: new StatusBus(),
    kinds: new KindCaches(),
    backups: newBackupStats(),
  };
}
