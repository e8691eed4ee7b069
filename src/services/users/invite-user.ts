import { actorText, type Actor } from '../../domain/actor.js';
import { normaliseEmail } from '../../domain/email.js';
import { AppError } from '../../domain/errors.js';
import { renderAccountMail } from '../../mail/account-mail.js';
import type { MailSender } from '../../mail/sender.js';
import { merchantById } from '../../storage/queries/merchants.js';
import { userByEmail } from '../../storage/queries/users.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { issueLink } from './issue-link.js';
import { sendAccountMail } from './send-account-mail.js';

/**
 * An operator or a merchant's owner invites someone (SIGNUP=invite or open): a link, mailed when the
 * gateway can send mail and returned either way so the inviter can pass it on. `merchantIds` are the
 * merchants the new user will belong to; `role` what it becomes (a merchant user unless told: a cashier,
 * who needs a merchant to sell for). Who may invite whom is the caller's check (domain/user-scope.ts).
 */
export async function inviteUser(
  deps: Deps,
  mail: MailSender | null,
  input: { email: string; merchantIds?: readonly string[]; role?: 'merchant' | 'cashier' },
  actor: Actor,
): Promise<{ email: string; role: 'merchant' | 'cashier'; link: string; mailed: boolean }> {
  if (deps.config.signup === 'closed')
    throw new AppError('invalid_parameter', 'invitations need SIGNUP=invite or SIGNUP=open', { param: 'signup' });
  const email = normaliseEmail(input.email);
  const merchantIds = [...new Set(input.merchantIds ?? [])];
  const role = input.role ?? 'merchant';
  if (role === 'cashier' && merchantIds.length === 0)
    throw new AppError('invalid_parameter', 'a cashier needs a merchant to sell for', { param: 'merchant' });
  for (const id of merchantIds) {
    if (!(await merchantById(deps.db, id)))
      throw new AppError('merchant_not_found', `no merchant ${id}`, { param: 'merchant' });
  }
  const existing = await userByEmail(deps.db, email);
  if (existing && !existing.deleted_at)
    throw new AppError('user_exists', `a user with the address ${email} already exists`, { param: 'email' });
  const now = deps.now();
  const link = await deps.db.runInTransaction(async (trx) => {
    const made = await issueLink(trx, deps.config.publicBaseUrl, 'invite', email, now, {
      merchantIds,
      createdBy: actorText(actor),
      role,
    });
    await writeAudit(trx, {
      actor,
      action: 'user.invite',
      subjectType: 'invitation',
      subjectId: email,
      details: { merchant_ids: merchantIds, role },
      now,
    });
    return made;
  });
  if (mail) await sendAccountMail(mail, renderAccountMail('invite', email, link, `acct-${now}-invite`));
  return { email, role, link, mailed: mail !== null };
}
