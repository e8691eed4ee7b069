import { randomBytes } from 'node:crypto';
import { userActor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { verifyPassword } from '../../hashing/passwords.js';
import { revokeKeysOfMerchant } from '../../storage/queries/api-keys.js';
import { markMerchantDisabled } from '../../storage/queries/merchants.js';
import { failPendingDeliveriesOfMerchant } from '../../storage/queries/deliveries.js';
import { clearLinkHandleOfMerchant } from '../../storage/queries/payment-links.js';
import { endSessionsOfUser } from '../../storage/queries/sessions.js';
import { disableSourcesOfMerchant } from '../../storage/queries/sources.js';
import { disableEndpointsOfMerchant } from '../../storage/queries/webhook-endpoints.js';
import { deleteTokensOfUser } from '../../storage/queries/user-tokens.js';
import {
  anonymiseUser,
  deleteMembershipsOfUser,
  merchantIdsOfUser,
  otherMembersOf,
  userById,
} from '../../storage/queries/users.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import type { Viewer } from '../../domain/viewer.js';

/**
 * A merchant user deletes its own account, after typing its password again. Its personal data goes (the
 * address and password hash are replaced, its links and sessions deleted or ended); a merchant nobody
 * else belongs to is disabled, its keys revoked, its webhook endpoints and payment sources turned off and
 * its payment-link handle freed (all in the deletion's own database transaction), while its transactions
 * and payments stay for the merchant's books. Operators are removed by another operator (`user disable`), never by themselves.
 */
export async function deleteAccount(
  deps: Deps,
  viewer: Viewer,
  password: string,
): Promise<{ merchantsClosed: string[] }> {
  if (viewer.role !== 'merchant')
    throw new AppError('invalid_parameter', 'an operator account is disabled by another operator, not deleted', {
      param: 'role',
    });
  const user = await userById(deps.db, viewer.userId);
  if (!user || !(await verifyPassword(password, user.password_hash))) {
    throw new AppError('invalid_parameter', 'the password is wrong', { param: 'password' });
  }
  const now = deps.now();
  const closed = await deps.db.runInTransaction(async (trx) => {
    const merchantsClosed: string[] = [];
    const handlesFreed: string[] = [];
    for (const merchantId of await merchantIdsOfUser(trx, user.id)) {
      if ((await otherMembersOf(trx, merchantId, user.id)) > 0) continue;
      // Everything that acts for the merchant stops with the account: its keys, the endpoints its events
      // go to, the sources that report its payments, and its public link (whose handle is free again).
      await revokeKeysOfMerchant(trx, merchantId, now);
      await markMerchantDisabled(trx, merchantId, now);
      await disableEndpointsOfMerchant(trx, merchantId, now);
      // As when an endpoint is removed: what still waits is closed as failed, out of the dispatcher's queue.
      await failPendingDeliveriesOfMerchant(trx, merchantId);
      await disableSourcesOfMerchant(trx, merchantId, now);
      const handle = await clearLinkHandleOfMerchant(trx, merchantId);
      if (handle !== null) handlesFreed.push(handle);
      merchantsClosed.push(merchantId);
    }
    await deleteMembershipsOfUser(trx, user.id);
    await deleteTokensOfUser(trx, user.id, user.email);
    await endSessionsOfUser(trx, user.id, now);
    // Nobody can log in with these: the address is no address, and no password hashes to random bytes.
    await anonymiseUser(
      trx,
      user.id,
      `deleted-${user.id}@invalid`,
      `deleted$${randomBytes(16).toString('base64url')}`,
      now,
    );
    // The row names the user by the address read before it was erased, as every other action of theirs.
    await writeAudit(trx, {
      actor: userActor(user),
      action: 'user.delete',
      subjectType: 'user',
      subjectId: user.id,
      details: { merchants_closed: merchantsClosed, handles_freed: handlesFreed },
      now,
    });
    return merchantsClosed;
  });
  // Revoked keys must stop at once in this process too.
  if (closed.length > 0) {
    deps.state.principals.clear(performance.now());
    deps.state.sources.clear(performance.now());
  }
  return { merchantsClosed: closed };
}
