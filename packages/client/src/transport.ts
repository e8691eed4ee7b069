// One call to the gateway, with the retries that are safe for it. Everything else in the client is built
// on `Transport.call`.
import type { ApiError } from './api-types.js';
import { readAll } from './body.js';
import { QrisGatewayError } from './errors.js';

export const CLIENT_VERSION = '0.1.0';

/**
 * - `safe`: repeating the call cannot do anything twice (a read, a cancel, a create with an
 *   Idempotency-Key), so it is retried after a dropped connection, a timeout or a 5xx as well.
 * - `refused`: the call may act, so it is retried only when the gateway said it did nothing and when to
 *   come back: a 503 or 429 with Retry-After.
 */
export type RetryPolicy = 'safe' | 'refused';

export interface Call {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  retry: RetryPolicy;
  /** Send the API key (public routes do not need it, so they are not sent it). */
  auth: boolean;
  signal?: AbortSignal | undefined;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxRetries: number;
  maxRetryDelayMs: number;
  fetch: typeof fetch;
}

/** Waits, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A controller of this call's own that also aborts when `outer` (the caller's signal) does, so the call
 * can end itself (its timeout, a silent stream) without touching the caller's signal; `release()`
 * unhooks it from `outer` once the call is over, so a long-lived caller signal collects no listeners.
 */
export function linkedController(outer?: AbortSignal): { controller: AbortController; release(): void } {
  const controller = new AbortController();
  if (outer === undefined) return { controller, release: () => {} };
  const forward = () => controller.abort(outer.reason);
  if (outer.aborted) forward();
  else outer.addEventListener('abort', forward, { once: true });
  return { controller, release: () => outer.removeEventListener('abort', forward) };
}

/** Retry-After as seconds (it may also be an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** 0.5 s, 1 s, 2 s, ... up to 8 s, each ±25%, so many clients that failed together do not retry together. */
function backoffMs(attempt: number): number {
  return Math.min(8000, 500 * 2 ** (attempt - 1)) * (0.75 + Math.random() * 0.5);
}

export class Transport {
  readonly baseUrl: string;
  readonly fetch: typeof fetch;
  constructor(private readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl;
    this.fetch = options.fetch;
  }

  url(path: string, query?: Record<string, string | number | undefined>): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [key, value] of Object.entries(query ?? {}))
      if (value !== undefined) url.searchParams.set(key, String(value));
    return url.toString();
  }

  headers(auth: boolean, extra?: Record<string, string>): Record<string, string> {
    return {
      'user-agent': `qris-gateway-client/${CLIENT_VERSION}`,
      ...(auth ? { 'x-api-key': this.options.apiKey } : {}),
      ...extra,
    };
  }

  /** The `data` of a JSON answer. */
  async json<T>(call: Call): Promise<T> {
    const { response, body } = await this.call(call, 'application/json');
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(body));
    } catch {
      throw invalidResponse(response, 'the answer is not JSON');
    }
    if (!isRecord(parsed) || parsed.success !== true || !('data' in parsed))
      throw invalidResponse(response, 'the answer has no data');
    return parsed.data as T;
  }

  /** The body of a binary answer, checked to be of the expected type. */
  async bytes(call: Call, type: string): Promise<Uint8Array> {
    const { response, body } = await this.call(call, type);
    if (!(response.headers.get('content-type') ?? '').startsWith(type))
      throw invalidResponse(response, `the answer is not ${type}`);
    return body;
  }

  /**
   * Sends the call, retrying as its policy allows, and reads the whole answer within `timeoutMs`. A 2xx
   * answer is returned; anything else is thrown as a QrisGatewayError.
   */
  async call(call: Call, accept: string): Promise<{ response: Response; body: Uint8Array }> {
    const { timeoutMs, maxRetries, maxRetryDelayMs } = this.options;
    const url = this.url(call.path, call.query);
    const init: RequestInit = {
      method: call.method,
      headers: this.headers(call.auth, {
        accept,
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...call.headers,
      }),
      redirect: 'error',
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    };
    for (let attempt = 0; ; attempt += 1) {
      const { controller, release } = linkedController(call.signal);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      let failure: QrisGatewayError;
      let waitMs: number;
      try {
        const response = await this.options.fetch(url, { ...init, signal: controller.signal });
        const body = await readAll(response, controller.signal);
        if (response.ok) return { response, body };
        failure = errorFrom(response, body);
        const retryable = retryableAnswer(response.status, failure.retryAfter, call.retry, maxRetryDelayMs);
        if (!retryable || attempt >= maxRetries) throw failure;
        waitMs = failure.retryAfter === undefined ? backoffMs(attempt + 1) : failure.retryAfter * 1000;
      } catch (err) {
        if (err instanceof QrisGatewayError) throw err;
        if (call.signal?.aborted) throw call.signal.reason;
        failure = timedOut
          ? new QrisGatewayError({
              code: 'timeout',
              status: 0,
              message: `no answer from ${url} within ${timeoutMs} ms`,
              cause: err,
            })
          : new QrisGatewayError({
              code: 'network_error',
              status: 0,
              message: `could not reach ${url}: ${describe(err)}`,
              cause: err,
            });
        // The request may have arrived and acted: only a call that is safe to repeat is sent again.
        if (call.retry !== 'safe' || attempt >= maxRetries) throw failure;
        waitMs = backoffMs(attempt + 1);
      } finally {
        clearTimeout(timer);
        release();
      }
      await sleep(waitMs, call.signal);
    }
  }
}

function retryableAnswer(
  status: number,
  retryAfter: number | undefined,
  policy: RetryPolicy,
  maxRetryDelayMs: number,
): boolean {
  // The gateway answers 503 and 429 with Retry-After when it did nothing (shutting down, a lost race, a
  // rate limit); a wait longer than the caller allows (a quota until midnight) is left to the caller.
  if ((status === 503 || status === 429) && retryAfter !== undefined) return retryAfter * 1000 <= maxRetryDelayMs;
  return policy === 'safe' && (status === 500 || status === 502 || status === 503 || status === 504);
}

function errorFrom(response: Response, raw: Uint8Array): QrisGatewayError {
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  const requestId = response.headers.get('x-request-id') ?? undefined;
  let body: unknown = null;
  try {
    body = JSON.parse(new TextDecoder().decode(raw));
  } catch {
    // Not the gateway's JSON: described below.
  }
  const error = isRecord(body) && isRecord(body.error) ? (body.error as unknown as ApiError) : null;
  if (error === null || typeof error.code !== 'string') {
    return new QrisGatewayError({
      code: 'invalid_response',
      status: response.status,
      message: `HTTP ${response.status} without the gateway's error body`,
      requestId,
      retryAfter,
    });
  }
  return new QrisGatewayError({
    code: error.code,
    status: response.status,
    message: typeof error.message === 'string' ? error.message : error.code,
    param: typeof error.param === 'string' ? error.param : undefined,
    requestId: typeof error.request_id === 'string' ? error.request_id : requestId,
    retryAfter,
  });
}

function invalidResponse(response: Response, why: string): QrisGatewayError {
  return new QrisGatewayError({
    code: 'invalid_response',
    status: response.status,
    message: `${why} (HTTP ${response.status})`,
    requestId: response.headers.get('x-request-id') ?? undefined,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // fetch reports every connection failure as "fetch failed"; the reason is in its cause.
  const cause = err.cause instanceof Error ? err.cause : null;
  const code = cause && 'code' in cause ? String((cause as { code: unknown }).code) : null;
  return cause ? `${code ? `${code} ` : ''}${cause.message}` : err.message;
}
