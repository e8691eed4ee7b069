// Table types for Kysely. Times are integer milliseconds since the epoch in both databases: one
// representation, no time-zone surprises, and cheap comparisons. Booleans are 0/1 integers for the same
// reason (SQLite has no boolean type).
export type Mode = 'test' | 'live';
export type TransactionStatus = 'pending' | 'paid' | 'expired' | 'cancelled';
export type PaymentStatus = 'matched' | 'unmatched';

export interface MerchantsTable {
  id: string;
  name: string;
  qris_static: string;
  merchant_name: string;
  merchant_city: string;
  nmid: string | null;
  acquirer: string | null;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  key_hash: string;
  key_prefix: string;
  created_at: number;
  revoked_at: number | null;
}

export interface TransactionsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  status: TransactionStatus;
  amount: number;
  unique_code: number;
  total_amount: number;
  currency: string;
  email: string | null;
  ref: string | null;
  qris: string;
  created_at: number;
  expires_at: number;
  paid_at: number | null;
  paid_late: number;
  payment_id: string | null;
  updated_at: number;
}

/** One row per total that a merchant's open (or recently expired) transaction holds. */
export interface ReservedTotalsTable {
  merchant_id: string;
  mode: Mode;
  total_amount: number;
  transaction_id: string;
  reserved_until: number;
}

export interface IdempotencyKeysTable {
  merchant_id: string;
  idem_key: string;
  request_hash: string;
  transaction_id: string;
  created_at: number;
}

export interface PaymentsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  source: string;
  source_payment_id: string;
  amount: number;
  paid_at: number;
  received_at: number;
  reference: string | null;
  payer_name: string | null;
  issuer: string | null;
  status: PaymentStatus;
  reason: string | null;
  transaction_id: string | null;
  raw: string | null;
}

export interface DB {
  merchants: MerchantsTable;
  api_keys: ApiKeysTable;
  transactions: TransactionsTable;
  reserved_totals: ReservedTotalsTable;
  idempotency_keys: IdempotencyKeysTable;
  payments: PaymentsTable;
}
