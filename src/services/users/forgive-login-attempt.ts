import { clearThrottleAt, uncountAttempt } from '../../storage/queries/login-throttles.js';
import type { Deps } from '../deps.js';
import type { Counted } from './count-or-wait.js';

/**
 * The password was right (or was never checked): the attempt no longer counts. `clearAccount` (a
 * completed login) also forgives the account's earlier failures, unless other attempts were counted
 * since this one (a burst under way: they were let through on their counts, so clearing could let more
 * of them through). The address keeps its failures, or one person with an account could reset the
 * counter that slows a guesser on the same address.
 */
export async function forgiveLoginAttempt(deps: Deps, counted: Counted, clearAccount: boolean): Promise<void> {
  const [account, address] = counted.keys;
  await deps.db.runInTransaction(async (trx) => {
    if (!(clearAccount && (await clearThrottleAt(trx, account!.key, counted.counts[0]!))))
      await uncountAttempt(trx, account!.key);
    await uncountAttempt(trx, address!.key);
  });
}
