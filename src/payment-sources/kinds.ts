// The registry of payment source kinds: one line per kind, in the order lists, help texts and forms show
// them. The mapped type makes the compiler refuse a type of payment_sources (SourceType) without a kind.
// `sourceCatalog` is how services reach the kinds: handed to them through Deps, never imported.
import { isoTime } from '../domain/iso-time.js';
import type { SourceCatalog, SourceView } from '../services/sources/source-view.js';
import type { PaymentSourcesTable, SourceType } from '../storage/schema.js';
import { parseJsonObject } from './common.js';
import { feedKind } from './feed/kind.js';
import type { SourceKind } from './kind.js';
import { snapKind } from './snap/kind.js';
import { webhookKind } from './webhook/kind.js';

const registry: { [T in SourceType]: SourceKind<T> } = {
  webhook: webhookKind,
  feed: feedKind,
  snap: snapKind,
};

export const sourceKinds: ReadonlyArray<SourceKind> = Object.values(registry);

export const sourceTypes = sourceKinds.map((kind) => kind.type);

export function sourceKind(type: SourceType): SourceKind {
  return registry[type];
}

export const sourceCatalog: SourceCatalog = {
  present(row: PaymentSourcesTable): SourceView {
    const config = parseJsonObject(row.config);
    return {
      id: row.id,
      merchant_id: row.merchant_id,
      type: row.type,
      mode: config.mode === 'test' ? 'test' : 'live',
      enabled: row.enabled === 1,
      created_at: isoTime(row.created_at),
      ...registry[row.type].details(row, config),
    };
  },
  isPolled: (type) => registry[type].polled,
};
