import { randomBytes } from 'node:crypto';
import { gatewaySecret } from '../../storage/queries/gateway-secrets.js';
import type { Deps } from '../deps.js';

/**
 * The key that signs the console's cookies (the CSRF secret's cookie) and its CSRF tokens. Made on the
 * first start and kept in the database, so every instance of one gateway shares it and a restart does
 * not invalidate forms that are open in browsers. Nobody has to configure it.
 */
export function consoleCookieSecret(deps: Deps): Promise<string> {
  return gatewaySecret(deps.db, 'console_cookie', () => randomBytes(32).toString('base64url'), deps.now());
}
