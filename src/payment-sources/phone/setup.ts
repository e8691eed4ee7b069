import type { Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import type { Deps } from '../../services/deps.js';
import { writeAudit } from '../../services/audit.js';
import { setPaymentSourceConfig } from '../../storage/queries/sources.js';
import type { PaymentSourcesTable } from '../../storage/schema.js';
import { inboundEventsPath, insertSource, parseJsonObject, parseMode, requireMerchant } from '../common.js';
import { newPhoneSecret, newPhoneToken, readCredentials, tokenHash } from './credentials.js';

export interface PhoneSourceCreated {
  id: string;
  /** The events path, under the public base URL. */
  url: string;
  /** Shown once each: the token (for apps that send fixed values) and the secret (for apps that sign). */
  token: string;
  secret: string;
}

export async function addPhoneSource(
  deps: Deps,
  input: { merchantId: string; mode?: string; actor?: Actor; name?: string | null },
): Promise<PhoneSourceCreated> {
  await requireMerchant(deps, input.merchantId);
  const mode = parseMode(input.mode);
  const token = newPhoneToken();
  const secret = newPhoneSecret();
  const id = await insertSource(deps, {
    merchantId: input.merchantId,
    type: 'phone',
    config: { mode, secret, token_hash: tokenHash(token), previous: null },
    actor: input.actor,
    name: input.name,
  });
  return { id, url: inboundEventsPath(id), token, secret };
}

/**
 * A new token and secret; the previous pair stays valid for PHONE_ROTATE_GRACE_SECONDS so the phone can be
 * updated without losing payments (a pair older than that, from an earlier rotation, is dropped). The
 * config and its audit row (source.rotate) in one unit of work.
 */
export async function rotatePhoneSource(
  deps: Deps,
  row: PaymentSourcesTable,
  actor: Actor,
): Promise<PhoneSourceCreated & { previous_valid_until: string }> {
  const config = parseJsonObject(row.config);
  const current = readCredentials(config);
  if (current === null) throw new AppError('source_not_found', 'no such payment source');
  const now = deps.now();
  const until = now + deps.config.phoneRotateGraceSeconds * 1000;
  const token = newPhoneToken();
  const secret = newPhoneSecret();
  const next = {
    ...config,
    secret,
    token_hash: tokenHash(token),
    previous: { secret: current.secret, token_hash: current.token_hash, until },
  };
  await deps.db.runInTransaction(async (trx) => {
    if (!(await setPaymentSourceConfig(trx, row.id, JSON.stringify(next), now)))
      throw new AppError('source_not_found', 'no such payment source');
    await writeAudit(trx, {
      actor,
      action: 'source.rotate',
      subjectType: 'payment_source',
      subjectId: row.id,
      details: { previous_valid_until: new Date(until).toISOString() },
      now,
    });
  });
  deps.state.sources.clear(performance.now());
  return {
    id: row.id,
    url: inboundEventsPath(row.id),
    token,
    secret,
    previous_valid_until: new Date(until).toISOString(),
  };
}
