import { parseJsonObject } from './common.js';
import { readFeedConfig, readFeedState } from './feed/setup.js';
import { webhookEventsPath } from './webhook/setup.js';
import { paymentSourcesInOrder, paymentSourcesInScope } from '../storage/queries/sources.js';
import type { PaymentSourcesTable } from '../storage/schema.js';
import type { Deps } from '../services/deps.js';
import { isoTime, isoTimeOrNull } from '../domain/iso-time.js';

export interface SourceView {
  id: string;
  merchant_id: string;
  type: string;
  mode: string;
  enabled: boolean;
  created_at: string;
  /** Webhook: the events path; feed: the polled URL with credentials and query values masked. */
  url: string | null;
  interval_seconds?: number;
  next_poll_at?: string | null;
  last_success_at?: string | null;
  last_error?: string | null;
  failures?: number;
}

/** Payment sources as operators see them: never a secret, a key or a token. */
export async function listSources(deps: Deps, merchantId?: string): Promise<SourceView[]> {
  const rows = await paymentSourcesInOrder(deps.db, merchantId);
  return rows.map(presentSource);
}

/** The sources of these merchants (all when null), oldest first: a console user's. */
export async function listSourcesInScope(deps: Deps, merchants: readonly string[] | null): Promise<SourceView[]> {
  return (await paymentSourcesInScope(deps.db, merchants)).map(presentSource);
}

export function presentSource(row: PaymentSourcesTable): SourceView {
  const config = parseJsonObject(row.config);
  const base: SourceView = {
    id: row.id,
    merchant_id: row.merchant_id,
    type: row.type,
    mode: config.mode === 'test' ? 'test' : 'live',
    enabled: row.enabled === 1,
    created_at: isoTime(row.created_at),
    url: null,
  };
  if (row.type === 'webhook') return { ...base, url: webhookEventsPath(row.id) };
  if (row.type === 'feed') {
    const feed = readFeedConfig(row);
    const state = readFeedState(row.state);
    return {
      ...base,
      url: maskUrl(feed.url),
      interval_seconds: feed.intervalSeconds,
      next_poll_at: isoTimeOrNull(row.next_poll_at),
      last_success_at: isoTimeOrNull(state.lastSuccessAt),
      last_error: state.lastError,
      failures: state.failures,
    };
  }
  // SNAP and future types: their configuration is mostly credentials; only the base URL is shown.
  return { ...base, url: typeof config.baseUrl === 'string' ? maskUrl(config.baseUrl) : null };
}

/** Feed URLs often carry an account's token in the query: values are masked, names kept. */
export function maskUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.username || url.password) {
      url.username = '***';
      url.password = '';
    }
    for (const key of [...new Set(url.searchParams.keys())]) url.searchParams.set(key, '***');
    return url.toString().replace(/%2A%2A%2A/g, '***');
  } catch {
    return '***';
  }
}
