import { newUserId } from '../../domain/ids.js';
import type { UsersTable } from '../../storage/schema.js';

/** A self-service user's row: a merchant user, its address confirmed at `verifiedAt` (null: not yet). */
export function merchantUserRow(
  email: string,
  passwordHash: string,
  now: number,
  verifiedAt: number | null,
): UsersTable {
  return {
    id: newUserId(),
    email,
    password_hash: passwordHash,
    role: 'merchant',
    disabled_at: null,
    last_login_at: null,
    created_at: now,
    updated_at: now,
    email_verified_at: verifiedAt,
  };
}
