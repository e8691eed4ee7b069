import type { Actor } from '../domain/actor.js';
import { AppError } from '../domain/errors.js';
import { isSourceId, newSourceId } from '../domain/ids.js';
import type { Deps } from '../services/deps.js';
import { writeAudit } from '../services/audit.js';
import { merchantExists } from '../storage/queries/merchants.js';
import { insertPaymentSource, loadPaymentSourceById } from '../storage/queries/sources.js';
import type { Mode, PaymentSourcesTable, SourceType } from '../storage/schema.js';

export async function requireMerchant(deps: Deps, merchantId: string): Promise<void> {
  if (!(await merchantExists(deps.db, merchantId)))
    throw new AppError('merchant_not_found', `no merchant ${merchantId}`, { param: 'merchant' });
}

export function parseMode(raw: unknown): Mode {
  if (raw === undefined || raw === null || raw === 'live') return 'live';
  if (raw === 'test') return 'test';
  throw new AppError('invalid_parameter', 'mode must be test or live', { param: 'mode' });
}

/**
 * Stores a new, enabled source with its validated config and its name (parsed by the domain's
 * parseSourceName), and returns its id; a polled one is due at once. With an actor, the audit row
 * (source.add, naming the name) is written in the same database transaction.
 */
export async function insertSource(
  deps: Deps,
  input: {
    merchantId: string;
    type: SourceType;
    config: unknown;
    polled?: boolean;
    actor?: Actor | undefined;
    name?: string | null | undefined;
  },
): Promise<string> {
  const id = newSourceId();
  const now = deps.now();
  await deps.db.runInTransaction(async (trx) => {
    await insertPaymentSource(trx, {
      id,
      merchantId: input.merchantId,
      type: input.type,
      config: JSON.stringify(input.config),
      now,
      polled: input.polled === true,
      name: input.name ?? null,
    });
    if (input.actor !== undefined) {
      await writeAudit(trx, {
        actor: input.actor,
        action: 'source.add',
        subjectType: 'payment_source',
        subjectId: id,
        details: { type: input.type, merchant_id: input.merchantId, ...(input.name ? { name: input.name } : {}) },
        now,
      });
    }
  });
  return id;
}

/** Where an inbound source is posted to (inbound-route.ts), under the public base URL. */
export const inboundEventsPath = (id: string): string => `/api/payment-sources/${id}/events`;

/** A source by id; a malformed id is simply not found (isSourceId). Reads of one turn share a statement. */
export async function findSource(deps: Deps, id: string): Promise<PaymentSourcesTable | null> {
  if (!isSourceId(id)) return null;
  return (await loadPaymentSourceById(deps.db, id)) ?? null;
}

export function parseJsonObject(text: string | null): Record<string, unknown> {
  if (text === null) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/**
 * Maps `items` through `fn` with at most `lanes` running at once, results in the items' order. Lanes,
 * not batches: a lane takes the next item as soon as its own is done, so one slow call (a feed or an
 * acquirer hanging until its timeout) holds up one lane, not every item after it.
 */
export async function mapInLanes<T, R>(items: readonly T[], lanes: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
  return results;
}
