import { clientAddressKey } from '../../domain/client-address.js';
import { countedFailures, throttleDelayMs, THROTTLE_FORGET_MS, type ThrottleRule } from '../../domain/console-session.js';
import { AppError } from '../../domain/errors.js';
import { hashPassword } from '../../domain/password.js';
import { renderAccountMail } from '../../mail/account-mail.js';
import type { MailSender } from '../../mail/sender.js';
import { countLoginFailure, setBlockedUntil, throttlesByKey } from '../../storage/queries/login-throttles.js';
import { insertUser, setUserPasswordHash, userByEmail } from '../../storage/queries/users.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { issueLink } from './account-links.js';
import { checkPassword, merchantUserRow, normaliseEmail } from './manage-users.js';

export interface SignUpInput {
  email: string;
  password: string;
  clientAddress: string;
}

/**
 * Open sign-up (SIGNUP=open). The answer is the same whether the address is new or taken, so nobody
 * learns which addresses have accounts: a new address gets a verification link; one that has an account
 * gets a mail saying so, with a password-reset link. Either way one e-mail goes to the address and
 * nothing else happens until its owner opens it. An address that signed up before but never confirmed
 * is taken over by the newer sign-up (its password replaced), since only the mailbox's owner can confirm.
 */
export async function signUp(deps: Deps, mail: MailSender, input: SignUpInput): Promise<void> {
  if (deps.config.signup !== 'open') throw new AppError('not_found', 'sign-up is not open here');
  await throttle(deps, `signup:${clientAddressKey(input.clientAddress)}`, deps.config.signupsPerAddress);
  const email = normaliseEmail(input.email);
  checkPassword(input.password);
  // Hashed in every case, so a taken address answers no faster than a new one.
  const passwordHash = await hashPassword(input.password);
  const now = deps.now();
  const base = deps.config.publicBaseUrl;
  const outgoing = await deps.db.runInTransaction(async (trx) => {
    const existing = await userByEmail(trx, email);
    if (existing && existing.email_verified_at !== null && existing.email_verified_at !== undefined) {
      const link = await issueLink(trx, base, 'reset', email, now, { userId: existing.id });
      return renderAccountMail('already-registered', email, link, `acct-${now}-${existing.id}`);
    }
    let userId = existing?.id;
    if (existing) {
      await setUserPasswordHash(trx, existing.id, passwordHash, now);
    } else {
      const row = merchantUserRow(email, passwordHash, now, null);
      userId = row.id;
      await insertUser(trx, row);
      await writeAudit(trx, { actor: 'signup', action: 'user.signup', subjectType: 'user', subjectId: userId, details: { address: input.clientAddress }, now });
    }
    const link = await issueLink(trx, base, 'verify', email, now, { userId: userId! });
    return renderAccountMail('verify', email, link, `acct-${now}-${userId}`);
  }).catch(async (err: unknown) => {
    // Two sign-ups of one new address at once: the unique index let one in, which sends its mail.
    if (!(err instanceof AppError) && (await userByEmail(deps.db, email))) return null;
    throw err;
  });
  if (outgoing) await send(mail, outgoing);
}

/** Sends an account mail at once; a relay that fails is the caller's 503 (nothing else was promised). */
export async function send(mail: MailSender, outgoing: Parameters<MailSender['send']>[0]): Promise<void> {
  try {
    await mail.send(outgoing);
  } catch {
    throw new AppError('service_unavailable', 'the e-mail could not be sent just now; try again in a minute', { retryAfter: 60 });
  }
}

/**
 * Counts one request under `key`; past `free` of them each further one waits twice as long as the last
 * (from a minute up to a day). Shared by every instance: the counters are in the database.
 */
export async function throttle(deps: Deps, key: string, free: number): Promise<void> {
  const rule: ThrottleRule = { free, firstDelayMs: 60_000, maxDelayMs: 24 * 3600_000 };
  const now = deps.now();
  const [row] = await throttlesByKey(deps.db, [key]);
  if (row && countedFailures(row.failures, row.last_failure_at, now) > 0 && row.blocked_until > now) {
    const seconds = Math.ceil((row.blocked_until - now) / 1000);
    throw new AppError('rate_limited', `too many requests from this address; try again in ${seconds} s`, { retryAfter: seconds });
  }
  await deps.db.runInTransaction(async (trx) => {
    const counted = await countLoginFailure(trx, key, now, now - THROTTLE_FORGET_MS);
    const delay = throttleDelayMs(rule, counted.failures);
    if (delay > 0) await setBlockedUntil(trx, key, now + delay);
  });
}
