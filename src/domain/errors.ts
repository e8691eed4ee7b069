// Every failure the gateway reports carries one of these stable codes. The HTTP layer maps a code to a
// status in exactly one place (src/wire/error-status.ts); the CLI prints the same codes.
export const ERROR_CODES = [
  'amount_required',
  'invalid_amount',
  'amount_out_of_range',
  'invalid_email',
  'invalid_parameter',
  'invalid_body',
  'invalid_qris',
  'api_key_required',
  'invalid_api_key',
  'invalid_signature',
  'api_key_mismatch',
  'test_mode_only',
  'merchant_disabled',
  'not_found',
  'transaction_not_found',
  'merchant_not_found',
  'source_not_found',
  'payment_not_found',
  'user_not_found',
  'user_exists',
  'handle_taken',
  'login_failed',
  'login_throttled',
  'csrf_failed',
  'live_not_approved',
  'live_rejected',
  'duplicate_nmid',
  'email_not_allowed',
  'merchant_limit_reached',
  'email_unverified',
  'link_invalid',
  'method_not_allowed',
  'request_timeout',
  'ref_conflict',
  'idempotency_key_reused',
  'transaction_already_paid',
  'transaction_expired',
  'payment_already_matched',
  'reference_already_recorded',
  'amount_differs',
  'transaction_not_kept_open',
  'transaction_not_paid',
  'refund_exceeds_remaining',
  'refund_limit_reached',
  'refund_refused',
  'payment_not_double',
  'payment_already_refunded',
  'payload_too_large',
  'uri_too_long',
  'headers_too_large',
  'unsupported_media_type',
  'image_too_large',
  'image_unsupported',
  'image_corrupt',
  'qr_not_found',
  'image_decode_timeout',
  'rate_limited',
  'quota_exceeded',
  'too_many_streams',
  'unique_code_exhausted',
  'service_unavailable',
  'streams_at_capacity',
  'overloaded',
  'database_unavailable',
  'storage_unavailable',
  'acquirer_unavailable',
  'acquirer_error',
  'internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  /** Seconds after which a retry may succeed, sent as Retry-After (429 and most 503s). */
  readonly retryAfter: number | undefined;

  constructor(code: ErrorCode, message: string, options: { param?: string; retryAfter?: number } = {}) {
    // An AppError is an answer (a refusal, a bad parameter), never logged with its stack, and V8 capturing
    // one was about a sixth of the CPU of a flood of 401s. An internal_error keeps it: it is logged.
    const limit = Error.stackTraceLimit;
    if (code !== 'internal_error') Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = 'AppError';
    this.code = code;
    this.param = options.param;
    this.retryAfter = options.retryAfter;
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
