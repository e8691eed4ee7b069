import type { Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { UNIQUE_CODE_MODES, type UniqueCodeMode } from '../../domain/unique-codes.js';
import { setMerchantUniqueCodeMode } from '../../storage/queries/merchants.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';

/**
 * Sets whether a merchant's unique code is added to the price or subtracted from it; audited. `scope` is
 * the merchants the asker may see (null: every merchant, the CLI's operator); another merchant is not
 * found, as an unknown one. Transactions already made keep their total; this process's next create uses
 * the new mode at once, other processes within 5 s (static-qris-issuer.ts).
 */
export async function setUniqueCodeMode(
  deps: Deps,
  scope: readonly string[] | null,
  merchantId: string,
  mode: string,
  actor: Actor,
): Promise<UniqueCodeMode> {
  const chosen = UNIQUE_CODE_MODES.find((m) => m === mode);
  if (chosen === undefined)
    throw new AppError('invalid_parameter', 'the unique code is either add or subtract', { param: 'unique_code' });
  const now = deps.now();
  await deps.db.runInTransaction(async (trx) => {
    if ((scope !== null && !scope.includes(merchantId)) || !(await setMerchantUniqueCodeMode(trx, merchantId, chosen)))
      throw new AppError('merchant_not_found', `no merchant ${merchantId}`, { param: 'merchant' });
    await writeAudit(trx, {
      actor,
      action: 'merchant.unique_code',
      subjectType: 'merchant',
      subjectId: merchantId,
      details: { unique_code_mode: chosen },
      now,
    });
  });
  deps.state.staticCodes.delete(merchantId);
  return chosen;
}
