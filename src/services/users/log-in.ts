import { hash } from 'node:crypto';
import { clientAddressKey } from '../../domain/client-address.js';
import {
  ACCOUNT_THROTTLE,
  ADDRESS_THROTTLE,
  countedFailures,
  hashSessionId,
  newSessionId,
  THROTTLE_FORGET_MS,
  throttleDelayMs,
  type ThrottleRule,
} from '../../domain/console-session.js';
import { AppError } from '../../domain/errors.js';
import { decoyHash, PASSWORD_MAX_LENGTH, verifyPassword } from '../../domain/password.js';
import { clearThrottle, countLoginFailure, setBlockedUntil, throttlesByKey } from '../../storage/queries/login-throttles.js';
import { insertSession } from '../../storage/queries/sessions.js';
import { markUserLoggedIn, userByEmail } from '../../storage/queries/users.js';
import type { UsersTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';

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
 * unknown address is checked against a decoy hash). Failures are counted per account (a hash of the
 * typed address, so unknown addresses count too) and per client address; past a few, logins under that
 * key wait, for a time that doubles with each further failure (`login_throttled`, with retryAfter).
 */
export async function logIn(deps: Deps, input: LogInInput): Promise<LoggedIn> {
  const now = deps.now();
  const email = input.email.trim().toLowerCase();
  const keys = throttleKeys(email, input.clientAddress);
  const waitMs = await currentWait(deps, keys, now);
  if (waitMs > 0) {
    const seconds = Math.ceil(waitMs / 1000);
    throw new AppError('login_throttled', `too many failed logins; try again in ${seconds} s`, { retryAfter: seconds });
  }

  const user = email.length > 0 && email.length <= 254 ? await userByEmail(deps.db, email) : undefined;
  const password = input.password.length <= PASSWORD_MAX_LENGTH ? input.password : '';
  const matches = await verifyPassword(password, user?.password_hash ?? (await decoyHash()));
  if (!user || !matches || user.disabled_at !== null) {
    await countFailure(deps, keys, now);
    throw new AppError('login_failed', 'the e-mail address or the password is wrong');
  }

  // Only someone who knows the password learns that the address is waiting for its confirmation.
  if (user.email_verified_at === null || user.email_verified_at === undefined) {
    throw new AppError('email_unverified', 'confirm your e-mail address first: open the link we sent you');
  }
  // A success forgives the account's failures; the address keeps its count, or one person with an
  // account could reset the counter that slows a guesser on the same address.
  await clearThrottle(deps.db, keys[0]!.key);
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
    await writeAudit(trx, { actor: `user:${user.email}`, action, subjectType: 'user', subjectId: user.id, details: { address: client.clientAddress }, now });
  });
  return sessionId;
}

interface ThrottleKey {
  key: string;
  rule: ThrottleRule;
}

function throttleKeys(email: string, clientAddress: string): ThrottleKey[] {
  return [
    { key: `account:${hash('sha256', email, 'hex')}`, rule: ACCOUNT_THROTTLE },
    { key: `address:${clientAddressKey(clientAddress)}`, rule: ADDRESS_THROTTLE },
  ];
}

async function currentWait(deps: Deps, keys: ThrottleKey[], now: number): Promise<number> {
  const rows = await throttlesByKey(
    deps.db,
    keys.map((k) => k.key),
  );
  let wait = 0;
  for (const row of rows) {
    if (countedFailures(row.failures, row.last_failure_at, now) === 0) continue;
    wait = Math.max(wait, row.blocked_until - now);
  }
  return wait;
}

async function countFailure(deps: Deps, keys: ThrottleKey[], now: number): Promise<void> {
  await deps.db.runInTransaction(async (trx) => {
    for (const { key, rule } of keys) {
      const row = await countLoginFailure(trx, key, now, now - THROTTLE_FORGET_MS);
      const delay = throttleDelayMs(rule, row.failures);
      if (delay > 0) await setBlockedUntil(trx, key, now + delay);
    }
  });
}
