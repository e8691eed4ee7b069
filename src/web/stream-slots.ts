import { AppError } from '../domain/errors.js';

export interface StreamLimits {
  perAddress: number;
  perTransaction: number;
  total: number;
}

/**
 * Retry-After on a refused stream. A slot frees when some other page's transaction ends (paid or expired,
 * minutes away), so there is no better estimate; meanwhile the page polls its status.
 */
export const STREAM_RETRY_AFTER_SECONDS = 30;

/** What a refusal says: the slots count streams of a client (address or user) to one subject (a transaction, a merchant). */
export interface StreamRefusals {
  perAddress(limit: number): string;
  perTransaction(limit: number): string;
  total: string;
}

const CHECKOUT_REFUSALS: StreamRefusals = {
  perAddress: (n) => `this client already has ${n} status streams open; the page polls its status instead`,
  perTransaction: (n) => `this transaction already has ${n} status streams open; the page polls its status instead`,
  total: 'this server has as many status streams open as it allows; the page polls its status instead',
};

export interface StreamSlot {
  /** Gives the slot back; calling it again does nothing. */
  release(): void;
}

/**
 * Counts open status streams per client address, per transaction and in total, and refuses one more
 * beyond any limit. Each open stream holds a socket and some memory until its transaction ends: without
 * limits one client could open streams until the process runs out of file descriptors and every request,
 * the API's included, fails. A slot is taken before anything is read, so a refusal costs no query.
 */
export class StreamSlots {
  private total = 0;
  private readonly byAddress = new Map<string, number>();
  private readonly byTransaction = new Map<string, number>();

  constructor(
    private readonly limits: StreamLimits,
    private readonly refusals: StreamRefusals = CHECKOUT_REFUSALS,
  ) {}

  get open(): number {
    return this.total;
  }

  /** A slot for one stream of this client to this transaction, or the refusal thrown. */
  take(address: string, trxid: string): StreamSlot {
    const retry = { retryAfter: STREAM_RETRY_AFTER_SECONDS };
    const { perAddress, perTransaction, total } = this.limits;
    if ((this.byAddress.get(address) ?? 0) >= perAddress) {
      throw new AppError('too_many_streams', this.refusals.perAddress(perAddress), retry);
    }
    if ((this.byTransaction.get(trxid) ?? 0) >= perTransaction) {
      throw new AppError('too_many_streams', this.refusals.perTransaction(perTransaction), retry);
    }
    if (this.total >= total) {
      throw new AppError('streams_at_capacity', this.refusals.total, retry);
    }
    this.total += 1;
    add(this.byAddress, address, 1);
    add(this.byTransaction, trxid, 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total -= 1;
        add(this.byAddress, address, -1);
        add(this.byTransaction, trxid, -1);
      },
    };
  }
}

/** Adds to a count, dropping it at zero so the maps hold only what is open. */
function add(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next === 0) counts.delete(key);
  else counts.set(key, next);
}
