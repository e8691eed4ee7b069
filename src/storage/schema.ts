// Table types for Kysely. Times are integer milliseconds since the epoch in both databases: one
// representation, no time-zone surprises, and cheap comparisons. Booleans are 0/1 integers for the same
// reason (SQLite has no boolean type).
export type {
  Mode,
  TransactionStatus,
  PaymentStatus,
  TransactionsTable,
  PaymentsTable,
  UserRole,
  EventType,
  RefundsTable,
  RefundStatus,
} from '../domain/records.js';
import type { Mode, TransactionsTable, PaymentsTable, UserRole, EventType, RefundsTable } from '../domain/records.js';
import type { UniqueCodeMode } from '../domain/unique-codes.js';

/** Which database a connection speaks to. */
export type Dialect = 'sqlite' | 'postgres';

export interface MerchantsTable {
  id: string;
  name: string;
  qris_static: string;
  merchant_name: string;
  merchant_city: string;
  nmid: string | null;
  acquirer: string | null;
  created_at: number;
  /** Set when an operator disables the merchant (migration 007); optional so older writers need not name it. */
  disabled_at?: number | null;
  /** When an operator approved its live keys (migration 008); null: live keys wait (LIVE_KEYS=approval). */
  live_approved_at?: number | null;
  /** Transactions it may create per WIB day; null: no limit (migration 009). */
  daily_create_quota?: number | null;
  /** The handle of its payment link, /pay/{handle} (migration 010), lower-case and unique; optional so other writers need not name it. */
  payment_link_handle?: string | null;
  /** When an operator rejected its live keys (migration 012); null: not rejected. Approving or "Ask again" clears it. */
  live_rejected_at?: number | null;
  /** Who rejected them, as audit_log.actor says it (migration 012). */
  live_rejected_by?: string | null;
  /** 1: its owners get yesterday's report by e-mail after midnight WIB (migration 019); optional for other writers. */
  daily_report_email?: number;
  /** How its unique code makes the total: added (the default) or subtracted from the price (migration 022); optional for other writers. */
  unique_code_mode?: UniqueCodeMode;
}

export interface ApiKeysTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  key_hash: string;
  key_prefix: string;
  created_at: number;
  revoked_at: number | null;
  /** Migration 007; optional so that code writing keys need not name it. */
  last_used_at?: number | null;
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

export type SourceType =
  | 'snap'
  | 'feed'
  | 'webhook'
  // A phone's forwarded notifications (issue 36, section 1).
  | 'phone'
  // Bank-mutation services (issue 36, section 2).
  | 'moota'
  | 'mutasibank'
  | 'cekmutasi';

/** A notification a phone source received and what it became (migration 021). */
export interface SourceNotificationsTable {
  id: string;
  source_id: string;
  received_at: number;
  app: string | null;
  title: string | null;
  text: string | null;
  outcome: 'matched' | 'unmatched' | 'duplicate' | 'ignored';
  reason: string | null;
  payment_id: string | null;
}

export interface PaymentSourcesTable {
  id: string;
  merchant_id: string;
  type: SourceType;
  /** JSON: the source's settings, secrets included (needed to verify and sign). */
  config: string;
  /** JSON: what the source remembers between runs (a feed's seen ids, a poll cursor). */
  state: string | null;
  enabled: number;
  created_at: number;
  updated_at: number;
  /**
   * Polled sources: when the next poll is due, or until when a poller's claim holds; null means now.
   * Optional so that code writing sources that are never polled need not name it.
   */
  next_poll_at?: number | null;
  /** What people call it ("HP kasir"; domain/source-name.ts), shown instead of its id; null when unnamed (migration 023). */
  name?: string | null;
}

export interface AuditLogTable {
  id: string;
  actor: string;
  action: string;
  subject_type: string;
  subject_id: string;
  details: string | null;
  created_at: number;
}

/** The outbox: one row per event, written in the same database transaction as the change it reports. */
export interface EventsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  type: EventType;
  transaction_id: string | null;
  payment_id: string | null;
  /** JSON: the exact body every delivery posts. */
  payload: string;
  created_at: number;
}

export interface WebhookEndpointsTable {
  id: string;
  merchant_id: string;
  url: string;
  secret: string;
  /** JSON array of event types, or ["*"]. */
  events: string;
  status: 'active' | 'failing' | 'disabled';
  consecutive_failures: number;
  created_at: number;
  updated_at: number;
}

export interface DeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: number;
  /** A dispatcher's claim: others skip the row until this time. */
  locked_until: number | null;
  last_attempt_at: number | null;
  last_status_code: number | null;
  created_at: number;
}

export interface DeliveryAttemptsTable {
  id: string;
  delivery_id: string;
  attempted_at: number;
  duration_ms: number;
  succeeded: number;
  status_code: number | null;
  response_body: string | null;
  error: string | null;
}

/**
 * What a payer e-mail is: a transaction's invoice or receipt (one of each at most), or a notice of its
 * refunds, `refunds:<due ms>` (the refunds whose notice_due is that time; at most one a
 * REFUND_NOTICE_WINDOW_SECONDS, migration 020). `refund:<refund id>`, the notice of one refund, is what
 * was queued before migration 020; still sent when found.
 */
export type EmailKind = 'invoice' | 'receipt' | 'daily_report' | `refunds:${number}` | `refund:${string}`;

export interface EmailsTable {
  id: string;
  merchant_id: string;
  transaction_id: string;
  /** daily_report: a merchant's report of a WIB day to one owner (migration 019); its transaction_id is then the report's key (domain/daily-report.ts reportMailKey). refunds:<due>: a notice of refunds to the payer. */
  kind: EmailKind;
  recipient: string;
  status: 'pending' | 'sent' | 'skipped' | 'failed';
  attempts: number;
  next_attempt_at: number;
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
}

/** SNAP query-poll schedule of an open acquirer-issued transaction (migration 004). */
export interface SnapPollsTable {
  transaction_id: string;
  source_id: string;
  attempts: number;
  /** When the next query is due; a poller claims a row by moving this forward (compare-and-set). */
  next_poll_at: number;
  /** No polls after this time (the transaction's expiry plus a grace for late settlement). */
  stop_after: number;
}

/** A B2B access token the gateway issued to an acquirer, for symmetric notifications. */
export interface SnapTokensTable {
  token_hash: string;
  source_id: string;
  expires_at: number;
}

/** X-EXTERNAL-IDs seen on notifications, unique per source and (Jakarta) day. */
export interface SnapExternalIdsTable {
  source_id: string;
  day: string;
  external_id: string;
  created_at: number;
}

/** A person who logs in to the console (migration 007). */
export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  role: UserRole;
  disabled_at: number | null;
  last_login_at: number | null;
  created_at: number;
  updated_at: number;
  /** When the address was proven (a sign-up link opened); users made by operators count as proven. Migration 008. */
  email_verified_at?: number | null;
  /** Set when the user deleted the account: its personal data is gone, its row kept for the audit log. */
  deleted_at?: number | null;
}

export interface UserMerchantsTable {
  user_id: string;
  merchant_id: string;
  created_at: number;
}

export interface SessionsTable {
  id_hash: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  ended_at: number | null;
  client_address: string | null;
  user_agent: string | null;
}

export interface LoginThrottlesTable {
  key: string;
  failures: number;
  last_failure_at: number;
  blocked_until: number;
}

export interface GatewaySecretsTable {
  name: string;
  value: string;
  created_at: number;
}

export type TokenPurpose = 'verify' | 'reset' | 'invite';

/** A single-use link sent by e-mail (migration 008). */
export interface UserTokensTable {
  token_hash: string;
  purpose: TokenPurpose;
  email: string;
  user_id: string | null;
  merchant_ids: string | null;
  /** The role an invitation makes (migration 015); null or absent: a merchant user. */
  role?: UserRole | null;
  created_by: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** How many transactions a merchant created on a WIB day (migration 009). */
export interface DailyCreatesTable {
  merchant_id: string;
  day: number;
  count: number;
}

/** The public link to a paid transaction's receipt (migration 016): a random token, one per transaction. */
export interface ReceiptLinksTable {
  transaction_id: string;
  token: string;
  created_at: number;
}

/** A merchant's alert channel (migration 014): `secret` is the bot token (telegram) or webhook URL (discord). */
export interface NotifyChannelsTable {
  id: string;
  merchant_id: string;
  type: 'telegram' | 'discord' | 'email';
  language: 'id' | 'en';
  secret: string | null;
  chat_id: string | null;
  status: 'active' | 'disabled';
  created_at: number;
  updated_at: number;
}

/** One alert to one channel, written with the change it reports; `facts` is JSON (domain/notify-facts.ts). */
export interface NotifyDeliveriesTable {
  id: string;
  channel_id: string;
  merchant_id: string;
  kind: 'payment_received' | 'payment_unmatched' | 'webhook_failing' | 'test';
  event_id: string | null;
  facts: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: number;
  locked_until: number | null;
  last_attempt_at: number | null;
  last_status_code: number | null;
  created_at: number;
}

export interface NotifyAttemptsTable {
  id: string;
  delivery_id: string;
  attempted_at: number;
  duration_ms: number;
  succeeded: number;
  status_code: number | null;
  error: string | null;
}

/** A merchant's day whose report e-mails were queued (migration 019): one row per merchant and WIB day. */
export interface DailyReportRunsTable {
  merchant_id: string;
  day: number;
  mails: number;
  created_at: number;
}

export interface DB {
  daily_report_runs: DailyReportRunsTable;
  receipt_links: ReceiptLinksTable;
  daily_creates: DailyCreatesTable;
  /** The same count for transactions made by payment links (migration 011): their own daily cap. */
  link_daily_creates: DailyCreatesTable;
  user_tokens: UserTokensTable;
  users: UsersTable;
  user_merchants: UserMerchantsTable;
  sessions: SessionsTable;
  login_throttles: LoginThrottlesTable;
  gateway_secrets: GatewaySecretsTable;
  payment_sources: PaymentSourcesTable;
  source_notifications: SourceNotificationsTable;
  audit_log: AuditLogTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  emails: EmailsTable;
  merchants: MerchantsTable;
  api_keys: ApiKeysTable;
  transactions: TransactionsTable;
  reserved_totals: ReservedTotalsTable;
  idempotency_keys: IdempotencyKeysTable;
  payments: PaymentsTable;
  refunds: RefundsTable;
  snap_polls: SnapPollsTable;
  snap_tokens: SnapTokensTable;
  snap_external_ids: SnapExternalIdsTable;
  notify_channels: NotifyChannelsTable;
  notify_deliveries: NotifyDeliveriesTable;
  notify_attempts: NotifyAttemptsTable;
}
