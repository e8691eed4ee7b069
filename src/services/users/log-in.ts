import { AppError } from '../../domain/errors.js';
import { PASSWORD_MAX_LENGTH } from '../../domain/password.js';
import { decoyHash, verifyPassword } from '../../hashing/passwords.js';
import { userByEmail } from '../../storage/queries/users.js';
import type { UsersTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { loginKeys } from '../../domain/console-session.js';
import { checkCounted } from './check-counted.js';
import { countLoginAttempt } from './count-login-attempt.js';
import { forgiveLoginAttempt } from './forgive-login-attempt.js';
import { startSession } from './start-session.js';

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
 * each further failure (`login_throttled`, with retryAfter). See count-or-wait.ts.
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
