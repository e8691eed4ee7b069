import { clientAddressKey } from '../../domain/client-address.js';
import { normaliseEmail } from '../../domain/email.js';
import type { AccountMailer } from '../../mail/account-mail-queue.js';
import { renderAccountMail } from '../../mail/account-mail.js';
import { retireUserTokens } from '../../storage/queries/user-tokens.js';
import { userByEmail } from '../../storage/queries/users.js';
import type { Deps } from '../deps.js';
import { issueLink } from './issue-link.js';
import { countRequest } from './count-request.js';

/**
 * Asks for a password-reset link. The answer is the same for every address; only an address with a
 * usable account gets the mail, which goes out after the answer, so a known address answers no slower
 * than an unknown one.
 */
export async function requestPasswordReset(
  deps: Deps,
  mail: AccountMailer,
  rawEmail: string,
  clientAddress: string,
): Promise<void> {
  await countRequest(deps, `reset:${clientAddressKey(clientAddress)}`, deps.config.signupsPerAddress);
  const email = normaliseEmail(rawEmail);
  const now = deps.now();
  const user = await userByEmail(deps.db, email);
  if (!user || user.deleted_at || user.disabled_at !== null) {
    // The same statement a known address's link starts with, so both answers cost one unit of work.
    await deps.db.runInTransaction((trx) => retireUserTokens(trx, email, 'reset', now));
    return;
  }
  const link = await deps.db.runInTransaction((trx) =>
    issueLink(trx, deps.config.publicBaseUrl, 'reset', email, now, { userId: user.id }),
  );
  mail.post(renderAccountMail('reset', email, link, `acct-${now}-${user.id}`));
}
