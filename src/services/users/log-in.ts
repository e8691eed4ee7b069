import { userActor } from '../../domain/actor.js';
import { hashSessionId, newSessionId } from '../../domain/console-session.js';
import { AppError } from '../../domain/errors.js';
import { PASSWORD_MAX_LENGTH } from '../../domain/password.js';
import { decoyHash, verifyPassword } from '../../hashing/passwords.js';
import { insertSession } from '../../storage/queries/sessions.js';
import { markUserLoggedIn, userByEmail } from '../../storage/queries/users.js';
import type { UsersTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { countLoginAttempt, forgiveLoginAttempt, loginKeys, type Counted } from './throttles.js';

export interface LogInInput {
  email: string;
  password: string;
  /** The client's address as the server sees it (request.ip). */
  clientAddress: string;
  userAgent: string | null;
}

export interface LoggedIn {
  /** The cookie's value: shown to the browser once, stored only as its hash. */
  sessionId: string;
  user: UsersTable;
}

/**
 * Checks an address and password and starts a session. Every refusal is `login_failed` with one message,
 * whether the address is unknown, the password wrong or the user disabled, and takes about as long (an
 * unknown address is checked against a decoy hash). Attempts are counted before the check, per account
 * (a hash of the typed address, so unknown addresses count too) and per client address, and a right
 * password takes its count back; past a few, logins under that key wait, for a time that doubles with
 * each further failure (`login_throttled`, with retryAfter). See throttles.ts.
 */
export async function logIn(deps: Deps, input: LogInInput): Promise<LoggedIn> {
  const email = input.email.trim().toLowerCase();
  const keys = loginKeys(email, input.clientAddress);
  // Counted before the password is checked, so a burst of guesses gets no more checks than the allowance.
  const counted = await countLoginAttempt(deps, keys);

  const user = email.length > 0 && email.length <= 254 ? await userByEmail(deps.db, email) : undefined;
  const password = input.password.length <= PASSWORD_MAX_LENGTH ? input.password : '';
  const decoy = user ? '' : await checkCounted(deps, counted, decoyHash);
  const matches = await checkCounted(deps, counted, () => verifyPassword(password, user?.password_hash ?? decoy));
  if (!user || !matches || user.disabled_at !== null) {
    throw new AppError('login_failed', 'the e-mail address or the password is wrong');
  }

  // Only someone who knows the password learns that the address is waiting for its confirmation.
  if (user.email_verified_at === null || user.email_verified_at === undefined) {
    await forgiveLoginAttempt(deps, counted, false);
    throw new AppError('email_unverified', 'confirm your e-mail address first: open the link we sent you');
  }
  await forgiveLoginAttempt(deps, counted, true);
  return { sessionId: await startSession(deps, user, input, 'user.login'), user };
}

/** Starts a session for a user who has just proven who they are (password, or a link from their mailbox). */
export async function startSession(deps: Deps, user: UsersTable, client: { clientAddress: string; userAgent: string | null }, action: string): Promise<string> {
  const now = deps.now();
  const sessionId = newSessionId();
  await deps.db.runInTransaction(async (trx) => {
    await insertSession(trx, {
      id_hash: hashSessionId(sessionId),
      user_id: user.id,
      created_at: now,
      last_seen_at: now,
      expires_at: now + deps.config.sessionMaxHours * 3600_000,
      ended_at: null,
      client_address: client.clientAddress.slice(0, 64),
      user_agent: client.userAgent?.slice(0, 256) ?? null,
    });
    await markUserLoggedIn(trx, user.id, now);
    await writeAudit(trx, { actor: userActor(user), action, subjectType: 'user', subjectId: user.id, details: { address: client.clientAddress }, now });
  });
  return sessionId;
}

/**
 * Runs a password hash for a counted attempt. When the hashing threads are too busy to take it
 * (`service_unavailable`, 503), the password was never checked: the attempt no longer counts.
 */
export async function checkCounted<T>(deps: Deps, counted: Counted, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AppError && err.code === 'service_unavailable') await forgiveLoginAttempt(deps, counted, false);
    throw err;
  }
}
