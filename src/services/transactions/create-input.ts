import type { Mode } from '../../storage/schema.js';

/** A create request as the services take it, whichever issuer makes its code. */
export interface CreateTransactionInput {
  merchantId: string;
  mode: Mode;
  /** Whole rupiah, already validated against the configured limits. */
  amount: number;
  email: string | null;
  ref: string | null;
  expiresInSeconds: number | null;
  idempotency: { key: string; requestHash: string } | null;
  /**
   * The merchant's daily create quota, filled in by createTransaction (services/merchants/quotas.ts):
   * null or absent means no limit.
   */
  dailyQuota?: number | null;
}
