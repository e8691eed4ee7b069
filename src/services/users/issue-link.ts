import { randomBytes } from 'node:crypto';
import { hashLinkToken } from '../../domain/account-link.js';
import { insertUserToken, retireUserTokens } from '../../storage/queries/user-tokens.js';
import type { Tx } from '../../storage/executor.js';
import type { TokenPurpose, UserRole } from '../../storage/schema.js';

/** How long each kind of link works. */
export const LINK_TTL_MS: Record<TokenPurpose, number> = {
  verify: 24 * 3600_000,
  reset: 24 * 3600_000,
  invite: 72 * 3600_000,
};

/** Where each kind of link leads (under PUBLIC_BASE_URL). */
const LINK_PATH: Record<TokenPurpose, string> = {
  verify: '/dashboard/signup/verify',
  reset: '/dashboard/reset/confirm',
  invite: '/dashboard/invite',
};

/**
 * Makes a single-use link of this purpose for `email`, retiring the address's earlier unused links of
 * the same purpose (only the newest mail works). Returns the absolute URL; only the token's hash is stored.
 */
export async function issueLink(
  trx: Tx,
  base: string,
  purpose: TokenPurpose,
  email: string,
  now: number,
  extra: { userId?: string; merchantIds?: readonly string[]; createdBy?: string; role?: UserRole } = {},
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await retireUserTokens(trx, email, purpose, now);
  await insertUserToken(trx, {
    token_hash: hashLinkToken(token),
    purpose,
    email,
    user_id: extra.userId ?? null,
    merchant_ids: extra.merchantIds ? JSON.stringify(extra.merchantIds) : null,
    created_by: extra.createdBy ?? null,
    role: extra.role ?? null,
    created_at: now,
    expires_at: now + LINK_TTL_MS[purpose],
    used_at: null,
  });
  return `${base}${LINK_PATH[purpose]}?token=${token}`;
}
