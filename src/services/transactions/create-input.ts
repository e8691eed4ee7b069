import type { Mode } from '../../storage/schema.js';

/** Which daily count a create is held to, and its limit: the merchant's API quota, or its links' cap. */
export interface DailyLimit {
  counter: 'api' | 'link';
  limit: number;
}

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
   * Who asks: the merchant's own API (and the CLI), the default; or a payer's open of a payment link,
   * whose refs and keys live in the `link:` namespace (domain/payment-link.ts) that no other create may use.
   */
  origin?: 'api' | 'link';
  /**
   * The daily count this create is held to, filled in by createTransaction (services/merchants/quotas.ts):
   * the merchant's API quota, or for a payment link's create the links' own cap. Null or absent: none.
   */
  dailyQuota?: DailyLimit | null;
  /**
   * A sale at the point of sale: the cashier who charged it (recorded on the transaction and named in the
   * audit log) and the sale's note, kept as the transaction's description. Absent for every other create.
   */
  sale?: PosSale;
}

export interface PosSale {
  userId: string;
  email: string;
  description: string | null;
}
