import type { Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import type { IpNetwork } from '../../domain/ip-networks.js';
import { literalHostRefusal } from '../../domain/webhook-url.js';
import type { Deps } from '../../services/deps.js';
import type { Mode, PaymentSourcesTable } from '../../storage/schema.js';
import { insertSource, parseJsonObject, parseMode, requireMerchant } from '../common.js';
import { DEFAULT_MAPPING, offsetMinutes, type FeedMapping } from './parse.js';

const MIN_INTERVAL_SECONDS = 5;
const MAX_INTERVAL_SECONDS = 86_400;

export interface FeedConfig {
  mode: Mode;
  url: string;
  intervalSeconds: number;
  mapping: FeedMapping;
}

/** What a feed remembers between polls (payment_sources.state). */
export interface FeedState {
  /** Ids of entries already recorded, newest first, bounded: saves re-recording a feed's whole window. */
  seen: string[];
  failures: number;
  lastError: string | null;
  lastPolledAt: number | null;
  lastSuccessAt: number | null;
}

export interface FeedSourceCreated {
  id: string;
  type: 'feed';
  merchant_id: string;
  mode: Mode;
  url: string;
  interval_seconds: number;
  mapping: FeedMapping;
}

export async function addFeedSource(
  deps: Deps,
  input: { merchantId: string; mode?: string; url: string; intervalSeconds: unknown; mapping?: unknown; actor?: Actor },
): Promise<FeedSourceCreated> {
  await requireMerchant(deps, input.merchantId);
  const config: FeedConfig = {
    mode: parseMode(input.mode),
    url: checkFeedUrl(input.url, deps.config.webhookAllowNetworks),
    intervalSeconds: checkInterval(input.intervalSeconds),
    mapping: checkMapping(input.mapping),
  };
  const id = await insertSource(deps, { merchantId: input.merchantId, type: 'feed', config, polled: true, actor: input.actor });
  return {
    id,
    type: 'feed',
    merchant_id: input.merchantId,
    mode: config.mode,
    url: config.url,
    interval_seconds: config.intervalSeconds,
    mapping: config.mapping,
  };
}

function checkFeedUrl(raw: unknown, allow: readonly IpNetwork[]): string {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new AppError('invalid_parameter', 'url must be an absolute http(s) URL', { param: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('invalid_parameter', 'url must start with http:// or https://', { param: 'url' });
  }
  // The poller's guard would refuse it at every poll: said now, as for a webhook.
  const refused = literalHostRefusal(url, allow);
  if (refused !== null) throw new AppError('invalid_parameter', `url ${refused}`, { param: 'url' });
  return url.toString();
}

function checkInterval(raw: unknown): number {
  const text = typeof raw === 'number' ? String(raw) : raw;
  if (typeof text !== 'string' || !/^[0-9]{1,6}$/.test(text) || Number(text) < MIN_INTERVAL_SECONDS || Number(text) > MAX_INTERVAL_SECONDS) {
    throw new AppError('invalid_parameter', `interval must be whole seconds from ${MIN_INTERVAL_SECONDS} to ${MAX_INTERVAL_SECONDS}`, { param: 'interval' });
  }
  return Number(text);
}

/** A partial mapping over the defaults; unknown keys are refused so a typo is not silently ignored. */
export function checkMapping(raw: unknown): FeedMapping {
  if (raw === undefined || raw === null) return { ...DEFAULT_MAPPING };
  const fail = (message: string): never => {
    throw new AppError('invalid_parameter', `mapping: ${message}`, { param: 'mapping' });
  };
  if (typeof raw !== 'object' || Array.isArray(raw)) fail('must be a JSON object');
  const mapping: FeedMapping = { ...DEFAULT_MAPPING };
  const nullable = new Set(['type', 'reference', 'issuer', 'payer']);
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!(key in DEFAULT_MAPPING)) fail(`unknown key ${JSON.stringify(key)}`);
    if (value === null && nullable.has(key)) {
      (mapping as unknown as Record<string, unknown>)[key] = null;
      continue;
    }
    const emptyAllowed = key === 'items';
    if (typeof value !== 'string' || (value === '' && !emptyAllowed) || value.length > 100)
      fail(`${key} must be a non-empty string${nullable.has(key) ? ' or null' : ''}`);
    (mapping as unknown as Record<string, unknown>)[key] = value;
  }
  if (offsetMinutes(mapping.utcOffset) === null) fail('utcOffset must look like +07:00');
  return mapping;
}

export function readFeedConfig(row: PaymentSourcesTable): FeedConfig {
  const raw = parseJsonObject(row.config);
  return {
    mode: raw.mode === 'test' ? 'test' : 'live',
    url: String(raw.url ?? ''),
    intervalSeconds: typeof raw.intervalSeconds === 'number' ? raw.intervalSeconds : 60,
    mapping: { ...DEFAULT_MAPPING, ...(typeof raw.mapping === 'object' && raw.mapping !== null ? (raw.mapping as Partial<FeedMapping>) : {}) },
  };
}

export function readFeedState(text: string | null): FeedState {
  const raw = parseJsonObject(text);
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    seen: Array.isArray(raw.seen) ? raw.seen.filter((s): s is string => typeof s === 'string') : [],
    failures: num(raw.failures) ?? 0,
    lastError: typeof raw.lastError === 'string' ? raw.lastError : null,
    lastPolledAt: num(raw.lastPolledAt),
    lastSuccessAt: num(raw.lastSuccessAt),
  };
}
