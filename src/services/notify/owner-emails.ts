import { merchantOwnerEmails } from '../../storage/queries/notify.js';
import type { Deps } from '../deps.js';

/** Where a merchant's e-mail alerts go: the addresses of its own console users, read when the alert is sent. */
export async function ownerEmails(deps: Deps, merchantId: string): Promise<string[]> {
  return merchantOwnerEmails(deps.db, merchantId);
}
