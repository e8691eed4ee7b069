import type { ErrorCode } from './api-types.js';

/**
 * Codes the client gives failures that never reached an answer of the gateway's:
 * - `network_error`: the connection failed (refused, reset, DNS);
 * - `timeout`: no answer within the request's `timeoutMs`;
 * - `invalid_response`: an answer that is not the gateway's JSON (a proxy's error page, say);
 * - `wait_timeout`: `waitForPayment` reached its `timeout` with the transaction still pending.
 */
export type ClientErrorCode = 'network_error' | 'timeout' | 'invalid_response' | 'wait_timeout';

export interface QrisGatewayErrorInit {
  code: ErrorCode | ClientErrorCode;
  message: string;
  /** The HTTP status; 0 when there was no answer. */
  status: number;
  param?: string | undefined;
  requestId?: string | undefined;
  retryAfter?: number | undefined;
  cause?: unknown;
}

/** Every failure of a client call: the API's error (code, param, status, request id) or one of the client's own. */
export class QrisGatewayError extends Error {
  override readonly name = 'QrisGatewayError';
  /** The API's stable error code (see its README), or a ClientErrorCode. */
  readonly code: ErrorCode | ClientErrorCode;
  /** The HTTP status; 0 when there was no answer. */
  readonly status: number;
  /** The parameter at fault, when the API names one. */
  readonly param: string | undefined;
  /** The gateway's request id (X-Request-Id): quote it to the operator, who finds the request in the log. */
  readonly requestId: string | undefined;
  /** Seconds the gateway asked to wait before trying again (Retry-After), when it said. */
  readonly retryAfter: number | undefined;

  constructor(init: QrisGatewayErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.param = init.param;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }

  /** The same as `requestId`, under the API's own name. */
  get request_id(): string | undefined {
    return this.requestId;
  }
}
