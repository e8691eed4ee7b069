// The registry of payment source kinds: one line per kind, in the order lists, help texts and forms show
// them. The mapped type makes the compiler refuse a type of payment_sources (SourceType) without a kind.
// `sourceCatalog` is how services reach the kinds: handed to them through Deps, never imported.
import { isoTime } from '../domain/iso-time.js';
import type { SourceCatalog, SourceView } from '../services/sources/source-view.js';
import type { PaymentSourcesTable, SourceType } from '../storage/schema.js';
import type { Actor } from '../domain/actor.js';
import { AppError } from '../domain/errors.js';
import type { Deps } from '../services/deps.js';
import { findSource, parseJsonObject } from './common.js';
import { feedKind } from './feed/kind.js';
import { phoneKind } from './phone/kind.js';
import type { SourceKind } from './kind.js';
import { snapKind } from './snap/kind.js';
import { webhookKind } from './webhook/kind.js';
import { mootaKind } from './moota/kind.js';
import { mutasibankKind } from './mutasibank/kind.js';
import { cekmutasiKind } from './cekmutasi/kind.js';

const registry: { [T in SourceType]: SourceKind<T> } = {
  webhook: webhookKind,
  feed: feedKind,
  snap: snapKind,
  phone: phoneKind,
  moota: mootaKind,
  mutasibank: mutasibankKind,
  cekmutasi: cekmutasiKind,
};

export const sourceKinds: ReadonlyArray<SourceKind> = Object.values(registry);

export const sourceTypes = sourceKinds.map((kind) => kind.type);

export function sourceKind(type: SourceType): SourceKind {
  return registry[type];
}

/** `source rotate ID`: new credentials for a source whose kind has any; another kind's is invalid_parameter. */
export async function rotateSource(
  deps: Deps,
  id: string,
  actor: Actor,
): Promise<{ id: string } & Record<string, unknown>> {
  const row = await findSource(deps, id);
  if (!row) throw new AppError('source_not_found', `no payment source ${id}`);
  const kind = registry[row.type];
  if (!kind.rotate)
    throw new AppError('invalid_parameter', `a ${kind.cliName} source has no token or secret to rotate`, {
      param: 'id',
    });
  return kind.rotate(deps, row, actor);
}

/** `dev notify`: what a source's sender would post for a payment, signed with the source's credentials. */
export async function simulatedSourcePost(
  deps: Deps,
  id: string,
  input: { app: string; amount: number },
): Promise<{ path: string; headers: Record<string, string>; body: string }> {
  const row = await findSource(deps, id);
  if (!row) throw new AppError('source_not_found', `no payment source ${id}`);
  const kind = registry[row.type];
  if (!kind.simulate)
    throw new AppError('invalid_parameter', `dev notify cannot post for a ${kind.cliName} source`, { param: 'source' });
  return kind.simulate.post(row, { ...input, now: deps.now() });
}

export const sourceCatalog: SourceCatalog = {
  present(row: PaymentSourcesTable): SourceView {
    const config = parseJsonObject(row.config);
    return {
      id: row.id,
      name: row.name ?? null,
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
