import { userActor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { checkPassword } from '../../domain/password.js';
import { hashPassword } from '../../hashing/passwords.js';
import { merchantById } from '../../storage/queries/merchants.js';
import { consumeUserToken } from '../../storage/queries/user-tokens.js';
import { insertUser, insertUserMerchants, userByEmail } from '../../storage/queries/users.js';
import type { UsersTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { hashLinkToken } from '../../domain/account-link.js';
import { linkIsLive } from './link-is-live.js';
import { invalidLink, type Client } from './link-use.js';
import { startSession } from './start-session.js';
import { merchantUserRow } from './merchant-user-row.js';

/**
 * Accepts an invitation: the user is made (address confirmed, with the invitation's merchants and role:
 * a cashier when the invitation says so, else a merchant user) and logged in.
 */
export async function acceptInvite(
  deps: Deps,
  token: string,
  password: string,
  client: Client,
): Promise<{ sessionId: string; user: UsersTable }> {
  // The link is looked up before anything is hashed: a made-up token costs one indexed read.
  if (!(await linkIsLive(deps, token, 'invite'))) throw invalidLink();
  checkPassword(password);
  const passwordHash = await hashPassword(password);
  const now = deps.now();
  const user = await deps.db.runInTransaction(async (trx) => {
    const used = await consumeUserToken(trx, hashLinkToken(token), 'invite', now);
    if (!used) throw invalidLink();
    const existing = await userByEmail(trx, used.email);
    if (existing)
      throw new AppError('user_exists', `a user with the address ${used.email} already exists; log in instead`, {
        param: 'email',
      });
    const row = {
      ...merchantUserRow(used.email, passwordHash, now, now),
      role: used.role === 'cashier' ? ('cashier' as const) : ('merchant' as const),
    };
    await insertUser(trx, row);
    const wanted = used.merchant_ids ? (JSON.parse(used.merchant_ids) as string[]) : [];
    const still: string[] = [];
    for (const id of wanted) if (await merchantById(trx, id)) still.push(id);
    // A cashier sells for a merchant: with every one of its merchants gone there is nothing to make.
    if (row.role === 'cashier' && still.length === 0)
      throw new AppError('merchant_not_found', 'the merchant this invitation was for is gone', { param: 'merchant' });
    await insertUserMerchants(trx, row.id, still, now);
    await writeAudit(trx, {
      actor: userActor(row),
      action: 'user.accept_invite',
      subjectType: 'user',
      subjectId: row.id,
      details: { merchant_ids: still, role: row.role },
      now,
    });
    return row;
  });
  return { sessionId: await startSession(deps, user, client, 'user.login'), user };
}
