import type { ErrorCode } from '../domain/errors.js';

// The one place where an error code becomes an HTTP status.
const STATUS: Record<ErrorCode, number> = {
  amount_required: 400,
  invalid_amount: 400,
  amount_out_of_range: 400,
  invalid_email: 400,
  invalid_parameter: 400,
  invalid_body: 400,
  invalid_qris: 400,
  api_key_mismatch: 400,
  api_key_required: 401,
  invalid_api_key: 401,
  invalid_signature: 401,
  test_mode_only: 403,
  // The key is valid but its merchant has been disabled by an operator (the console's merchants page).
  merchant_disabled: 403,
  not_found: 404,
  transaction_not_found: 404,
  merchant_not_found: 404,
  source_not_found: 404,
  payment_not_found: 404,
  user_not_found: 404,
  // A console user with this e-mail address already exists (the CLI's user add).
  user_exists: 409,
  // A payment-link handle another merchant already holds.
  handle_taken: 409,
  // Console login: wrong address or password (one answer for both), or too many failures for now.
  login_failed: 401,
  login_throttled: 429,
  // A console form posted without its token, or with a stale one.
  csrf_failed: 403,
  // A self-service merchant's live key before an operator approved the merchant (LIVE_KEYS=approval).
  live_not_approved: 403,
  // A self-service merchant's live key after an operator rejected the merchant (the approval queue's Reject).
  live_rejected: 403,
  // A merchant add whose QRIS has the NMID of a merchant already saved (an operator may save it anyway).
  duplicate_nmid: 409,
  // A create with an `email` that is not a member's own address, for a merchant still waiting for an
  // operator's approval: the gateway mails no stranger on behalf of a merchant nobody has looked at.
  email_not_allowed: 403,
  // A self-service user adding a merchant beyond MERCHANTS_PER_USER.
  merchant_limit_reached: 403,
  // A console login with the right password for an address not yet confirmed.
  email_unverified: 403,
  // A sign-up, reset or invitation link that was used, has expired or never existed.
  link_invalid: 410,
  method_not_allowed: 405,
  request_timeout: 408,
  ref_conflict: 409,
  idempotency_key_reused: 409,
  transaction_already_paid: 409,
  transaction_expired: 409,
  payment_already_matched: 409,
  reference_already_recorded: 409,
  // An assign of a payment of another amount, not accepted (services/payments/assign-payment.ts).
  amount_differs: 409,
  // A refund of a transaction that is not paid, or of more than it received less what went back already
  // (services/refunds/refund-transaction.ts).
  transaction_not_paid: 409,
  transaction_not_kept_open: 409,
  refund_exceeds_remaining: 409,
  // The transaction has had REFUND_MAX_PER_TRANSACTION refunds (of any status): no more are admitted.
  refund_limit_reached: 409,
  // The acquirer (or the payer's issuer behind it) refused the refund: the request was fine, the refund
  // is not possible; the refund is kept as failed.
  refund_refused: 422,
  // A double payment's refund (services/refunds/refund-double-payment.ts): of a payment that is not one
  // (matched, or unmatched for another reason), or of one refunded already (also the assign of it).
  payment_not_double: 409,
  payment_already_refunded: 409,
  payload_too_large: 413,
  // An uploaded image: over the byte or pixel limit (413), not PNG or JPEG (415), or a PNG/JPEG that
  // cannot be decoded or holds no readable QR code (422: the request was fine, the picture is not).
  image_too_large: 413,
  image_unsupported: 415,
  image_corrupt: 422,
  qr_not_found: 422,
  uri_too_long: 414,
  unsupported_media_type: 415,
  headers_too_large: 431,
  rate_limited: 429,
  // The merchant created as many transactions today (WIB) as its plan allows; Retry-After: to midnight WIB.
  quota_exceeded: 429,
  // A client (or everyone watching one transaction) holds as many checkout status streams as allowed.
  too_many_streams: 429,
  internal_error: 500,
  unique_code_exhausted: 503,
  service_unavailable: 503,
  // The server holds as many checkout status streams as it may, from all clients together.
  streams_at_capacity: 503,
  // The process is past an overload limit (OVERLOAD_* settings): shed before any work, Retry-After set.
  overloaded: 503,
  // The database cannot be reached (PostgreSQL down, restarting, or its connection cut); Retry-After set.
  database_unavailable: 503,
  // A write failed for lack of disk space or an I/O error (SQLite's file); reads go on; Retry-After set.
  storage_unavailable: 503,
  // The SNAP acquirer answered with a refusal or nonsense (502), or not at all / overloaded (503).
  acquirer_error: 502,
  acquirer_unavailable: 503,
  // Decoding an image (waiting for a free decoder included) outran its bound: the decoders were busy or
  // the picture is unusually hard; Retry-After says when to try again.
  image_decode_timeout: 503,
};

export function statusFor(code: ErrorCode): number {
  return STATUS[code];
}
