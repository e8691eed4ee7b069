import { AppError } from '../domain/errors.js';
import type { Deps } from '../services/deps.js';
import type { Mode, PaymentSourcesTable } from '../storage/schema.js';

const SOURCE_ID = /^src_[0-9A-Za-z]{1,64}$/;

export async function requireMerchant(deps: Deps, merchantId: string): Promise<void> {
  const found = await deps.db.selectFrom('merchants').select('id').where('id', '=', merchantId).executeTakeFirst();
  if (!found) throw new AppError('merchant_not_found', `no merchant ${merchantId}`, { param: 'merchant' });
}

export function parseMode(raw: unknown): Mode {
  if (raw === undefined || raw === null || raw === 'live') return 'live';
  if (raw === 'test') return 'test';
  throw new AppError('invalid_parameter', 'mode must be test or live', { param: 'mode' });
}

/** A source by id; a malformed id is simply not found, so probing learns nothing about the format. */
export async function findSource(deps: Deps, id: string): Promise<PaymentSourcesTable | null> {
  if (!SOURCE_ID.test(id)) return null;
  return (await deps.db.selectFrom('payment_sources').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

export function parseJsonObject(text: string | null): Record<string, unknown> {
  if (text === null) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
