import { userActor, actorText, type Actor } from '../../domain/actor.js';
import { clientAddressKey } from '../../domain/client-address.js';
import { normaliseEmail } from '../../domain/email.js';
import { AppError } from '../../domain/errors.js';
import { checkPassword } from '../../domain/password.js';
import { hashPassword, verifyPassword } from '../../hashing/passwords.js';
import type { AccountMailer } from '../../mail/account-mail-queue.js';
import { renderAccountMail } from '../../mail/account-mail.js';
import type { MailSender } from '../../mail/sender.js';
import { merchantById } from '../../storage/queries/merchants.js';
import { endSessionsOfUser } from '../../storage/queries/sessions.js';
import { consumeUserToken, liveUserToken, retireUserTokens } from '../../storage/queries/user-tokens.js';
import { insertUser, insertUserMerchants, markEmailVerified, setUserPasswordHash, userByEmail, userById } from '../../storage/queries/users.js';
import type { TokenPurpose, UsersTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { hashLinkToken, issueLink, LINK_TOKEN } from './account-links.js';
import { checkCounted, startSession } from './log-in.js';
import { merchantUserRow } from './merchant-user-row.js';
import { send } from './sign-up.js';
import { countLoginAttempt, countRequest, forgiveLoginAttempt, loginKeys } from './throttles.js';

export interface Client {
  clientAddress: string;
  userAgent: string | null;
}

const invalid = () => new AppError('link_invalid', 'this link was already used, has expired or is not one of ours');

/** Whether a link is still good, for the page that asks to confirm it (nothing is used up by looking). */
export async function linkIsLive(deps: Deps, token: string, purpose: TokenPurpose): Promise<{ email: string } | null> {
  if (!LINK_TOKEN.test(token)) return null;
  const row = await liveUserToken(deps.db, hashLinkToken(token), purpose, deps.now());
  return row ? { email: row.email } : null;
}

/**
 * Opens a sign-up link: the address is confirmed, the link used up, and the user logged in, but only
 * with the account's password. A link proves the mailbox, not who signed up: someone else may have
 * signed up the same address (issue 23). The password is counted by the login throttle like a login,
 * and a wrong one (`login_failed`) leaves the link as it was.
 */
export async function verifyEmail(deps: Deps, token: string, password: string, client: Client): Promise<{ sessionId: string; user: UsersTable }> {
  if (!LINK_TOKEN.test(token)) throw invalid();
  const now = deps.now();
  const live = await liveUserToken(deps.db, hashLinkToken(token), 'verify', now);
  const found = live?.user_id ? await userById(deps.db, live.user_id) : undefined;
  if (!live || !found || found.email !== live.email || found.deleted_at || found.disabled_at !== null) throw invalid();
  const keys = loginKeys(found.email, client.clientAddress);
  const counted = await countLoginAttempt(deps, keys);
  if (!(await checkCounted(deps, counted, () => verifyPassword(password, found.password_hash)))) {
    throw new AppError('login_failed', 'the password is wrong');
  }
  await forgiveLoginAttempt(deps, counted, true);
  const user = await deps.db.runInTransaction(async (trx) => {
    const used = await consumeUserToken(trx, hashLinkToken(token), 'verify', now);
    const current = used ? await userById(trx, found.id) : undefined;
    // Still the account whose password was just checked (not reset or deleted in between).
    if (!used || !current || used.user_id !== current.id || current.password_hash !== found.password_hash || current.deleted_at || current.disabled_at !== null) {
      throw invalid();
    }
    await markEmailVerified(trx, current.id, now);
    await writeAudit(trx, { actor: userActor(current), action: 'user.verify', subjectType: 'user', subjectId: current.id, now });
    return current;
  });
  return { sessionId: await startSession(deps, user, client, 'user.login'), user };
}

/**
 * Asks for a password-reset link. The answer is the same for every address; only an address with a
 * usable account gets the mail, which goes out after the answer, so a known address answers no slower
 * than an unknown one.
 */
export async function requestPasswordReset(deps: Deps, mail: AccountMailer, rawEmail: string, clientAddress: string): Promise<void> {
  await countRequest(deps, `reset:${clientAddressKey(clientAddress)}`, deps.config.signupsPerAddress);
  const email = normaliseEmail(rawEmail);
  const now = deps.now();
  const user = await userByEmail(deps.db, email);
  if (!user || user.deleted_at || user.disabled_at !== null) {
    // The same statement a known address's link starts with, so both answers cost one unit of work.
    await deps.db.runInTransaction((trx) => retireUserTokens(trx, email, 'reset', now));
    return;
  }
  const link = await deps.db.runInTransaction((trx) => issueLink(trx, deps.config.publicBaseUrl, 'reset', email, now, { userId: user.id }));
  mail.post(renderAccountMail('reset', email, link, `acct-${now}-${user.id}`));
}

/** Uses a reset link: a new password, every other session ended, the address confirmed, logged in. */
export async function resetPassword(deps: Deps, token: string, password: string, client: Client): Promise<{ sessionId: string; user: UsersTable }> {
  // The link is looked up before anything is hashed: a made-up token costs one indexed read.
  if (!(await linkIsLive(deps, token, 'reset'))) throw invalid();
  checkPassword(password);
  const passwordHash = await hashPassword(password);
  const now = deps.now();
  const user = await deps.db.runInTransaction(async (trx) => {
    const used = await consumeUserToken(trx, hashLinkToken(token), 'reset', now);
    const found = used?.user_id ? await userById(trx, used.user_id) : undefined;
    if (!found || found.email !== used!.email || found.deleted_at || found.disabled_at !== null) throw invalid();
    await setUserPasswordHash(trx, found.id, passwordHash, now);
    await markEmailVerified(trx, found.id, now);
    await endSessionsOfUser(trx, found.id, now);
    await writeAudit(trx, { actor: userActor(found), action: 'user.password_reset', subjectType: 'user', subjectId: found.id, now });
    return found;
  });
  return { sessionId: await startSession(deps, user, client, 'user.login'), user };
}

/**
 * An operator invites someone (SIGNUP=invite or open): a link, mailed when the gateway can send mail
 * and returned either way so the operator can pass it on. `merchantIds` are the merchants the new user
 * will belong to.
 */
export async function inviteUser(deps: Deps, mail: MailSender | null, input: { email: string; merchantIds?: readonly string[] }, actor: Actor): Promise<{ email: string; link: string; mailed: boolean }> {
  if (deps.config.signup === 'closed') throw new AppError('invalid_parameter', 'invitations need SIGNUP=invite or SIGNUP=open', { param: 'signup' });
  const email = normaliseEmail(input.email);
  const merchantIds = [...new Set(input.merchantIds ?? [])];
  for (const id of merchantIds) {
    if (!(await merchantById(deps.db, id))) throw new AppError('merchant_not_found', `no merchant ${id}`, { param: 'merchant' });
  }
  const existing = await userByEmail(deps.db, email);
  if (existing && !existing.deleted_at) throw new AppError('user_exists', `a user with the address ${email} already exists`, { param: 'email' });
  const now = deps.now();
  const link = await deps.db.runInTransaction(async (trx) => {
    const made = await issueLink(trx, deps.config.publicBaseUrl, 'invite', email, now, { merchantIds, createdBy: actorText(actor) });
    await writeAudit(trx, { actor, action: 'user.invite', subjectType: 'invitation', subjectId: email, details: { merchant_ids: merchantIds }, now });
    return made;
  });
  if (mail) await send(mail, renderAccountMail('invite', email, link, `acct-${now}-invite`));
  return { email, link, mailed: mail !== null };
}

/** Accepts an invitation: the user is made (address confirmed, with the invitation's merchants) and logged in. */
export async function acceptInvite(deps: Deps, token: string, password: string, client: Client): Promise<{ sessionId: string; user: UsersTable }> {
  // The link is looked up before anything is hashed: a made-up token costs one indexed read.
  if (!(await linkIsLive(deps, token, 'invite'))) throw invalid();
  checkPassword(password);
  const passwordHash = await hashPassword(password);
  const now = deps.now();
  const user = await deps.db.runInTransaction(async (trx) => {
    const used = await consumeUserToken(trx, hashLinkToken(token), 'invite', now);
    if (!used) throw invalid();
    const existing = await userByEmail(trx, used.email);
    if (existing) throw new AppError('user_exists', `a user with the address ${used.email} already exists; log in instead`, { param: 'email' });
    const row = merchantUserRow(used.email, passwordHash, now, now);
    await insertUser(trx, row);
    const wanted = used.merchant_ids ? (JSON.parse(used.merchant_ids) as string[]) : [];
    const still: string[] = [];
    for (const id of wanted) if (await merchantById(trx, id)) still.push(id);
    await insertUserMerchants(trx, row.id, still, now);
    await writeAudit(trx, { actor: userActor(row), action: 'user.accept_invite', subjectType: 'user', subjectId: row.id, details: { merchant_ids: still }, now });
    return row;
  });
  return { sessionId: await startSession(deps, user, client, 'user.login'), user };
}
