import type { Logger } from 'pino';
import { isAppError } from '../domain/errors.js';

/** The longest pause between rounds while the database is unavailable. */
export const MAX_OUTAGE_BACKOFF_MS = 30_000;

/** A round that failed because the database or its disk is unavailable, not because of its own work. */
export function isOutage(err: unknown): boolean {
  return isAppError(err) && (err.code === 'database_unavailable' || err.code === 'storage_unavailable');
}

/**
 * How a background worker waits out a database outage: while its rounds fail with database_unavailable
 * or storage_unavailable, the pause doubles from the worker's interval up to MAX_OUTAGE_BACKOFF_MS (or
 * stays the interval if that is longer), and the outage is logged once as it starts and once as it ends,
 * not at every round.
 */
export class OutageBackoff {
  #delay = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly logger: Logger,
    private readonly worker: string,
  ) {}

  /** The pause before the next round after a failed one, or null when the failure is not an outage. */
  failed(err: unknown): number | null {
    if (!isOutage(err)) return null;
    if (this.#delay === 0)
      this.logger.warn({ err, worker: this.worker }, 'database unavailable: worker backing off until it answers');
    this.#delay = Math.max(this.intervalMs, Math.min(this.#delay * 2 || this.intervalMs, MAX_OUTAGE_BACKOFF_MS));
    return this.#delay;
  }

  succeeded(): void {
    if (this.#delay > 0) this.logger.info({ worker: this.worker }, 'database available again: worker resumed');
    this.#delay = 0;
  }
}
