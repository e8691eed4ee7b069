import { isoTime, isoTimeOrNull } from '../../domain/iso-time.js';
import type { Mode } from '../../storage/schema.js';

export interface ApiKeySummary {
  id: string;
  merchant_id: string;
  mode: Mode;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

export interface CreatedApiKey extends ApiKeySummary {
  /** The secret itself: returned once, never stored. */
  key: string;
}

export function summary(row: {
  id: string;
  merchant_id: string;
  mode: Mode;
  key_prefix: string;
  created_at: number;
  revoked_at: number | null;
}): ApiKeySummary {
  return {
    id: row.id,
    merchant_id: row.merchant_id,
    mode: row.mode,
    prefix: row.key_prefix,
    created_at: isoTime(row.created_at),
    revoked_at: isoTimeOrNull(row.revoked_at),
  };
}
