import type { TokenPurpose } from '../../storage/schema.js';
import { liveUserToken } from '../../storage/queries/user-tokens.js';
import type { Deps } from '../deps.js';
import { hashLinkToken, LINK_TOKEN } from '../../domain/account-link.js';

/** Whether a link is still good, for the page that asks to confirm it (nothing is used up by looking). */
export async function linkIsLive(deps: Deps, token: string, purpose: TokenPurpose): Promise<{ email: string } | null> {
  if (!LINK_TOKEN.test(token)) return null;
  const row = await liveUserToken(deps.db, hashLinkToken(token), purpose, deps.now());
  return row ? { email: row.email } : null;
}
