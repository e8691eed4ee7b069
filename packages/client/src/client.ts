import { randomUUID } from 'node:crypto';
import type { RefundedTransaction, Transaction, TransactionPage } from './api-types.js';
import { Transport } from './transport.js';
import { waitForPayment, type WaitOptions } from './wait-for-payment.js';

export interface ClientOptions {
  /** The gateway's address, e.g. `https://pay.example.com` (a trailing `/api` is accepted and dropped). */
  baseUrl: string;
  /** A secret key: `sk_test_...` (sandbox) or `sk_live_...`. */
  apiKey: string;
  /** Per request, until the answer has arrived. Default 30 000 ms. */
  timeoutMs?: number;
  /** Retries of a call that is safe to repeat, or that the gateway refused with Retry-After. Default 2. */
  maxRetries?: number;
  /** A Retry-After longer than this is not waited for: the error is thrown with its `retryAfter`. Default 10 000 ms. */
  maxRetryDelayMs?: number;
  /** Another fetch (a proxy agent, instrumentation). Default: the global fetch. */
  fetch?: typeof fetch;
}

export interface CreateQrisInput {
  /** Whole rupiah. The gateway adds a unique code; `total_amount` of the answer is what the payer pays. */
  amount: number;
  /** The payer's e-mail, for the invoice and the receipt. */
  email?: string;
  /** Your order id: the same `ref` with the same amount returns the same transaction. */
  ref?: string;
  /** Seconds until the code expires (the gateway bounds it). */
  expiresIn?: number;
  /**
   * Makes a retried create return the first one's transaction. Unless retries are off (`maxRetries: 0`)
   * the client sends a random one when you give none, so its own retries never create twice; give your
   * own to be safe across restarts too.
   */
  idempotencyKey?: string;
}

export interface RefundInput {
  /** Whole rupiah. Without it, everything that remains of what the transaction received. */
  amount?: number;
  /** Why (1 to 256 characters). */
  reason: string;
  /** A code made from your static QRIS only: your own reference of the money you paid back. */
  reference?: string;
  /**
   * Makes a retried refund answer the first one's refund instead of refunding again. The client sends a
   * random one when you give none (unless retries are off); give your own to be safe across restarts too.
   */
  idempotencyKey?: string;
}

export interface ListInput {
  status?: Transaction['status'];
  /** Transactions per page asked of the gateway, 1 to 100 (default 20). The iterator goes through every page. */
  limit?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
}

const KEY = /^sk_(test|live)_[A-Za-z0-9]+$/;

/** A client of one gateway with one API key. Safe to share: it keeps no state between calls. */
export class QrisGatewayClient {
  private readonly transport: Transport;
  private readonly retries: boolean;

  constructor(options: ClientOptions) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw new TypeError(`baseUrl is not a URL: ${JSON.stringify(options.baseUrl)}`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError('baseUrl must be http: or https:');
    if (typeof options.apiKey !== 'string' || !KEY.test(options.apiKey))
      throw new TypeError('apiKey must be a secret key, sk_test_... or sk_live_...');
    this.retries = (options.maxRetries ?? 2) > 0;
    const path = base.pathname.replace(/\/+$/, '').replace(/\/api$/, '');
    this.transport = new Transport({
      baseUrl: `${base.origin}${path}`,
      apiKey: options.apiKey,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 2,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 10_000,
      fetch: options.fetch ?? globalThis.fetch,
    });
  }

  /** Creates a transaction and its dynamic QRIS. */
  createQris(input: CreateQrisInput, options: CallOptions = {}): Promise<Transaction> {
    return this.transport.json<Transaction>({
      method: 'POST',
      path: '/api/payment-gateway/cqris',
      body: { amount: input.amount, email: input.email, ref: input.ref, expires_in: input.expiresIn },
      // The key makes the client's own retries safe. Without retries none is invented: a keyed create
      // costs the gateway more CPU than a plain one (npm run bench: cqris-client against cqris-post).
      headers:
        input.idempotencyKey !== undefined
          ? { 'idempotency-key': input.idempotencyKey }
          : this.retries
            ? { 'idempotency-key': randomUUID() }
            : {},
      retry: 'safe',
      auth: true,
      signal: options.signal,
    });
  }

  /** One transaction of this key's merchant and mode (another's is a 404 `transaction_not_found`). */
  getStatus(trxid: string, options: CallOptions = {}): Promise<Transaction> {
    return this.transport.json<Transaction>({
      method: 'GET',
      path: '/api/payment-gateway/cstatus',
      query: { trxid },
      retry: 'safe',
      auth: true,
      signal: options.signal,
    });
  }

  /** Cancels a pending transaction. Idempotent: a cancelled one is answered as it is. */
  cancel(trxid: string, options: CallOptions = {}): Promise<Transaction> {
    return this.transport.json<Transaction>({
      method: 'POST',
      path: '/api/payment-gateway/cancel',
      body: { trxid },
      retry: 'safe',
      auth: true,
      signal: options.signal,
    });
  }

  /**
   * Refunds a paid transaction, wholly or in part. A code made from your static QRIS is only recorded as
   * paid back by you (`refund.recorded`): the gateway moves no money for it.
   */
  refund(trxid: string, input: RefundInput, options: CallOptions = {}): Promise<RefundedTransaction> {
    return this.transport.json<RefundedTransaction>({
      method: 'POST',
      path: '/api/payment-gateway/refund',
      body: { trxid, amount: input.amount, reason: input.reason, reference: input.reference },
      // Retried only under an Idempotency-Key, so a retry can never refund twice.
      headers:
        input.idempotencyKey !== undefined
          ? { 'idempotency-key': input.idempotencyKey }
          : this.retries
            ? { 'idempotency-key': randomUUID() }
            : {},
      retry: 'safe',
      auth: true,
      signal: options.signal,
    });
  }

  /** Every transaction, newest first, fetching page after page as the loop asks for more. */
  async *listTransactions(
    input: ListInput = {},
    options: CallOptions = {},
  ): AsyncGenerator<Transaction, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.transport.json<TransactionPage>({
        method: 'GET',
        path: '/api/payment-gateway/cstatus',
        query: { limit: input.limit, status: input.status, cursor },
        retry: 'safe',
        auth: true,
        signal: options.signal,
      });
      yield* page.items;
      if (!page.has_more || page.next_cursor === null) return;
      cursor = page.next_cursor;
    }
  }

  /** The QR code as PNG bytes: what a chat bot sends as a photo. */
  qrPng(trxid: string, options: CallOptions = {}): Promise<Uint8Array> {
    return this.transport.bytes(
      {
        method: 'GET',
        path: `/api/payment-gateway/qr/${encodeURIComponent(trxid)}.png`,
        retry: 'safe',
        auth: false,
        signal: options.signal,
      },
      'image/png',
    );
  }

  /**
   * Resolves with the transaction once it is final: paid, expired or cancelled (look at `status`; a
   * cancelled or expired one can still turn paid later, with `paid_late`). Follows the gateway's live
   * status stream, and polls with backoff while the stream cannot be had.
   */
  waitForPayment(trxid: string, options: WaitOptions = {}): Promise<Transaction> {
    return waitForPayment(this.transport, (id, signal) => this.getStatus(id, { signal }), trxid, options);
  }

  /** Pays a sandbox transaction (test keys only; a live key is a 403 `test_mode_only`). */
  simulatePayment(trxid: string, input: { amount?: number } = {}, options: CallOptions = {}): Promise<Transaction> {
    return this.transport.json<Transaction>({
      method: 'POST',
      path: '/api/payment-gateway/simulate',
      query: { trxid, amount: input.amount },
      // Paying twice is not the same as paying once: only a refusal with Retry-After is sent again.
      retry: 'refused',
      auth: true,
      signal: options.signal,
    });
  }
}
