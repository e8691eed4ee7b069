import { SIGNUP_ACTOR } from '../../domain/actor.js';
import { clientAddressKey } from '../../domain/client-address.js';
import { normaliseEmail } from '../../domain/email.js';
import { AppError } from '../../domain/errors.js';
import { checkPassword } from '../../domain/password.js';
import { hashPassword } from '../../hashing/passwords.js';
import type { AccountMailer } from '../../mail/account-mail-queue.js';
import { renderAccountMail } from '../../mail/account-mail.js';
import { insertUser, userByEmail } from '../../storage/queries/users.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { issueLink } from './issue-link.js';
import { merchantUserRow } from './merchant-user-row.js';
import { countRequest } from './count-request.js';

export interface SignUpInput {
  email: string;
  password: string;
  clientAddress: string;
}

/**
 * Open sign-up (SIGNUP=open). The answer is the same whether the address is new, waiting for its
 * confirmation or taken, so nobody learns which addresses have accounts, and it comes before any mail
 * is sent (the mail goes out after it). A new address gets a verification link; one waiting for its
 * confirmation gets a fresh verification link, and keeps the password of the sign-up that made it (a
 * later sign-up never replaces it: that was an account takeover, issue 23); one that has an account gets
 * a mail saying so, with a password-reset link. Either way one e-mail goes to the address and nothing
 * else happens until its owner opens it, and confirming asks for the account's password.
 */
export async function signUp(deps: Deps, mail: AccountMailer, input: SignUpInput): Promise<void> {
  if (deps.config.signup !== 'open') throw new AppError('not_found', 'sign-up is not open here');
  await countRequest(deps, `signup:${clientAddressKey(input.clientAddress)}`, deps.config.signupsPerAddress);
  const email = normaliseEmail(input.email);
  checkPassword(input.password);
  // Hashed in every case, so a taken address answers no faster than a new one.
  const passwordHash = await hashPassword(input.password);
  const now = deps.now();
  const base = deps.config.publicBaseUrl;
  const outgoing = await deps.db
    .runInTransaction(async (trx) => {
      const existing = await userByEmail(trx, email);
      if (existing && existing.email_verified_at !== null && existing.email_verified_at !== undefined) {
        const link = await issueLink(trx, base, 'reset', email, now, { userId: existing.id });
        return renderAccountMail('already-registered', email, link, `acct-${now}-${existing.id}`);
      }
      let userId = existing?.id;
      if (!existing) {
        const row = merchantUserRow(email, passwordHash, now, null);
        userId = row.id;
        await insertUser(trx, row);
        await writeAudit(trx, {
          actor: SIGNUP_ACTOR,
          action: 'user.signup',
          subjectType: 'user',
          subjectId: userId,
          details: { address: input.clientAddress },
          now,
        });
      }
      const link = await issueLink(trx, base, 'verify', email, now, { userId: userId! });
      return renderAccountMail('verify', email, link, `acct-${now}-${userId}`);
    })
    .catch(async (err: unknown) => {
      // Two sign-ups of one new address at once: the unique index let one in, which sends its mail.
      if (!(err instanceof AppError) && (await userByEmail(deps.db, email))) return null;
      throw err;
    });
  if (outgoing) mail.post(outgoing);
}
