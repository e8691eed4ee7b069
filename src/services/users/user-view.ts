import { isoTime, isoTimeOrNull } from '../../domain/iso-time.js';
import type { UserRole, UsersTable } from '../../storage/schema.js';

export interface UserView {
  id: string;
  email: string;
  role: UserRole;
  merchant_ids: string[];
  disabled: boolean;
  created_at: string;
  last_login_at: string | null;
}

/** A user as the console and the CLI show it. */
export function userView(row: UsersTable, merchantIds: readonly string[]): UserView {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    merchant_ids: [...merchantIds],
    disabled: row.disabled_at !== null,
    created_at: isoTime(row.created_at),
    last_login_at: isoTimeOrNull(row.last_login_at),
  };
}
