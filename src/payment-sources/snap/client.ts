// The gateway as a SNAP BI client of an acquirer: B2B token, generate, query, cancel, refund.
import { randomInt } from 'node:crypto';
import { AppError } from '../../domain/errors.js';
import type { Deps } from '../../services/deps.js';
import { snapCaches, type CachedToken, type SnapCaches } from './caches.js';
import type { SnapSource } from './config.js';
import { signAccessToken, signSymmetric, snapTimestamp } from './signature.js';

export const SNAP_PATHS = {
  token: '/v1.0/access-token/b2b',
  generate: '/v1.0/qr/qr-mpm-generate',
  query: '/v1.0/qr/qr-mpm-query',
  notify: '/v1.0/qr/qr-mpm-notify',
  cancel: '/v1.0/qr/qr-mpm-cancel',
  refund: '/v1.0/qr/qr-mpm-refund',
} as const;

export interface GenerateResult {
  referenceNo: string;
  qrContent: string;
}

export interface QueryResult {
  latestTransactionStatus: string;
  body: Record<string, unknown>;
}

/** At most 36 characters, unique per day: epoch milliseconds and 18 random digits. */
export function newExternalId(): string {
  return `${Date.now()}${String(randomInt(1e9)).padStart(9, '0')}${String(randomInt(1e9)).padStart(9, '0')}`;
}

/** Whole rupiah as SNAP writes an amount: {value: "10000.00", currency: "IDR"} (generate and refund alike). */
export const snapMoney = (rupiah: number): { value: string; currency: string } => ({
  value: `${rupiah}.00`,
  currency: 'IDR',
});

/**
 * An acquirer's answer as it came, for calls whose refusals carry meaning (refund): the HTTP status, the
 * JSON object (null when the body was not one) and its responseCode / responseMessage.
 */
export interface SnapAnswer {
  status: number;
  body: Record<string, unknown> | null;
  responseCode: string | null;
  responseMessage: string;
}

// Wire timestamps and token lifetimes use the real clock, not deps.now: the acquirer compares them
// with its own clock. The tokens are kept in the gateway's SNAP caches (caches.ts).
export class SnapClient {
  private readonly timeoutMs: number;
  private readonly caches: SnapCaches;

  constructor(
    private readonly source: SnapSource,
    deps: Deps,
  ) {
    this.timeoutMs = deps.config.snapHttpTimeoutMs;
    this.caches = snapCaches(deps);
  }

  private url(path: string): string {
    return `${this.source.config.baseUrl}${this.source.config.pathPrefix}${path}`;
  }

  async generate(input: { partnerReferenceNo: string; amount: number; validUntil: number }): Promise<GenerateResult> {
    const { config } = this.source;
    const body = await this.call('generate', SNAP_PATHS.generate, {
      partnerReferenceNo: input.partnerReferenceNo,
      amount: snapMoney(input.amount),
      merchantId: config.merchantId,
      terminalId: config.terminalId,
      validityPeriod: snapTimestamp(input.validUntil),
    });
    const referenceNo = body.referenceNo;
    const qrContent = body.qrContent;
    if (typeof referenceNo !== 'string' || referenceNo === '' || referenceNo.length > 64) {
      throw new AppError('acquirer_error', 'the acquirer answered generate without a usable referenceNo');
    }
    if (typeof qrContent !== 'string' || qrContent === '')
      throw new AppError('acquirer_error', 'the acquirer answered generate without qrContent');
    if (body.partnerReferenceNo !== undefined && body.partnerReferenceNo !== input.partnerReferenceNo) {
      throw new AppError('acquirer_error', 'the acquirer answered generate for another partnerReferenceNo');
    }
    return { referenceNo, qrContent };
  }

  async query(input: { partnerReferenceNo: string; referenceNo: string }): Promise<QueryResult> {
    const body = await this.call('query', SNAP_PATHS.query, {
      originalPartnerReferenceNo: input.partnerReferenceNo,
      originalReferenceNo: input.referenceNo,
      serviceCode: '47',
      merchantId: this.source.config.merchantId,
    });
    const status = body.latestTransactionStatus;
    if (typeof status !== 'string' || !/^[0-9]{2}$/.test(status)) {
      throw new AppError('acquirer_error', 'the acquirer answered query without a 2-digit latestTransactionStatus');
    }
    return { latestTransactionStatus: status, body };
  }

  /**
   * Asks the acquirer to void an unpaid code (service 77). Resolves when the acquirer confirms; a
   * refusal (a code already paid, among others) is an acquirer_error, no answer an acquirer_unavailable.
   */
  async cancel(input: {
    partnerReferenceNo: string;
    referenceNo: string;
    reason: string;
  }): Promise<Record<string, unknown>> {
    const body = await this.call('cancel', SNAP_PATHS.cancel, {
      originalPartnerReferenceNo: input.partnerReferenceNo,
      originalReferenceNo: input.referenceNo,
      merchantId: this.source.config.merchantId,
      reason: input.reason,
    });
    if (body.originalReferenceNo !== undefined && body.originalReferenceNo !== input.referenceNo) {
      throw new AppError('acquirer_error', 'the acquirer answered cancel for another referenceNo');
    }
    return body;
  }

  /**
   * Asks the acquirer to refund part or all of a paid code (service 78). Answers whatever the acquirer
   * said, refusals included (refund.ts judges them); no answer, a 5xx or a 429 is an
   * acquirer_unavailable thrown, like every other call. The same partnerRefundNo on a retry is how the
   * acquirer knows not to refund twice.
   */
  async refund(input: {
    partnerReferenceNo: string;
    referenceNo: string;
    partnerRefundNo: string;
    amount: number;
    reason: string;
  }): Promise<SnapAnswer> {
    return this.exchange('refund', SNAP_PATHS.refund, {
      merchantId: this.source.config.merchantId,
      originalPartnerReferenceNo: input.partnerReferenceNo,
      originalReferenceNo: input.referenceNo,
      partnerRefundNo: input.partnerRefundNo,
      refundAmount: snapMoney(input.amount),
      // SNAP allows 256 characters of reason.
      reason: input.reason.slice(0, 256),
    });
  }

  /** A B2B token, from the cache unless it is close to expiry; concurrent callers share one request. */
  async accessToken(): Promise<string> {
    const { id, config } = this.source;
    const key = `${config.baseUrl}${config.pathPrefix}|${config.clientId}`;
    const { tokens, refreshing } = this.caches;
    const cached = tokens.get(id);
    if (cached && cached.key === key && Date.now() < cached.refreshAt) return cached.token;
    let pending = refreshing.get(id);
    if (!pending) {
      pending = this.fetchToken(key).finally(() => refreshing.delete(id));
      refreshing.set(id, pending);
    }
    return (await pending).token;
  }

  private async fetchToken(key: string): Promise<CachedToken> {
    const { config, privateKey } = this.source;
    const timestamp = snapTimestamp(Date.now());
    const started = Date.now();
    const body = successOf(
      'token',
      await this.answer('token', SNAP_PATHS.token, JSON.stringify({ grantType: 'client_credentials' }), {
        'X-TIMESTAMP': timestamp,
        'X-CLIENT-KEY': config.clientId,
        'X-SIGNATURE': signAccessToken(privateKey, config.clientId, timestamp),
      }),
    );
    const token = body.accessToken;
    if (typeof token !== 'string' || token === '')
      throw new AppError('acquirer_error', 'the acquirer answered the token request without accessToken');
    const expiresIn = Number(body.expiresIn ?? 900);
    const lifeMs = (Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 900) * 1000;
    // Renew a minute early (or at 80% of a short life) so a call never carries an expiring token.
    const entry = { key, token, refreshAt: started + lifeMs - Math.min(60_000, lifeMs / 5) };
    this.caches.tokens.set(this.source.id, entry);
    return entry;
  }

  /** A signed call whose answer must be a success (2xx with a 200xxxx responseCode); anything else throws. */
  private async call(what: string, path: string, payload: object): Promise<Record<string, unknown>> {
    return successOf(what, await this.exchange(what, path, payload));
  }

  /** A signed call: the answer as it came, once the token is settled and the acquirer did answer. */
  private async exchange(what: string, path: string, payload: object, retried = false): Promise<SnapAnswer> {
    const { config } = this.source;
    const token = await this.accessToken();
    const body = JSON.stringify(payload);
    const timestamp = snapTimestamp(Date.now());
    const url = new URL(this.url(path));
    const signature = signSymmetric(
      config.clientSecret,
      { method: 'POST', path: url.pathname, accessToken: token, body, timestamp },
      config.signatureEncoding,
    );
    try {
      return await this.answer(what, path, body, {
        Authorization: `Bearer ${token}`,
        'X-TIMESTAMP': timestamp,
        'X-SIGNATURE': signature,
        'X-PARTNER-ID': config.partnerId,
        'X-EXTERNAL-ID': newExternalId(),
        'CHANNEL-ID': config.channelId,
      });
    } catch (err) {
      // A token the acquirer revoked early (restart, rotation) is renewed once, not reported.
      if (!retried && err instanceof TokenRejected) {
        // Forget the token the acquirer rejected.
        this.caches.tokens.delete(this.source.id);
        return this.exchange(what, path, payload, true);
      }
      throw err instanceof TokenRejected ? new AppError('acquirer_error', err.message) : err;
    }
  }

  /**
   * Sends one request. Throws acquirer_unavailable when there is no answer (network, timeout), a 5xx or
   * a 429: the call may be repeated later. A rejected access token throws TokenRejected (renewed once by
   * exchange). Any other answer is returned for the caller to judge.
   */
  private async answer(what: string, path: string, body: string, headers: Record<string, string>): Promise<SnapAnswer> {
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.url(path), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      const reason =
        err instanceof Error && err.name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs} ms`
          : 'connection failed';
      throw new AppError('acquirer_unavailable', `the acquirer did not answer ${what} (${reason})`, { retryAfter: 5 });
    }
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Judged below together with the status.
    }
    const json =
      typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : null;
    const code = typeof json?.responseCode === 'string' ? json.responseCode : null;
    const answer: SnapAnswer = {
      status: res.status,
      body: json,
      responseCode: code,
      responseMessage: String(json?.responseMessage ?? '').slice(0, 120),
    };
    const described = describeAnswer(answer);
    if (res.status >= 500 || res.status === 429) {
      throw new AppError('acquirer_unavailable', `the acquirer could not serve ${what} (${described})`, {
        retryAfter: 5,
      });
    }
    // SNAP's x-01 case of 401 is "Invalid Token (B2B)".
    if (res.status === 401 && code !== null && /^401\d{2}01$/.test(code) && what !== 'token')
      throw new TokenRejected(`the acquirer rejected the access token (${described})`);
    return answer;
  }
}

/** "4037805 Do Not Honor", or "HTTP 403" when the answer has no responseCode. */
export function describeAnswer(answer: SnapAnswer): string {
  return answer.responseCode ? `${answer.responseCode} ${answer.responseMessage}`.trim() : `HTTP ${answer.status}`;
}

/** The body of a successful answer; a refusal or a malformed answer is an acquirer_error. */
function successOf(what: string, answer: SnapAnswer): Record<string, unknown> {
  const described = describeAnswer(answer);
  if (answer.status < 200 || answer.status > 299)
    throw new AppError('acquirer_error', `the acquirer refused ${what} (${described})`);
  if (answer.body === null)
    throw new AppError('acquirer_error', `the acquirer answered ${what} with something other than a JSON object`);
  if (answer.responseCode === null || !/^200\d{4}$/.test(answer.responseCode))
    throw new AppError('acquirer_error', `the acquirer refused ${what} (${described})`);
  return answer.body;
}

class TokenRejected extends Error {}
