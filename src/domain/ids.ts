import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Uniform random base62 text from the CSPRNG. Bytes >= 248 are rejected so that `byte % 62` has no
 * bias (248 = 4 * 62).
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

// Every request takes at least one id (its request id), so bytes come from a pool refilled from the
// CSPRNG 4 KiB at a time, as crypto.randomUUID does: one call per ~150 ids instead of one per id. Each
// byte is used once.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function nextRandomByte(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

// 22 base62 characters carry 130 random bits: transaction ids double as the capability for the public
// QR image and checkout page, so they must not be guessable.
export const newTransactionId = (): string => `trx_${randomBase62(22)}`;
export const newMerchantId = (): string => `mch_${randomBase62(16)}`;
export const newApiKeyId = (): string => `key_${randomBase62(16)}`;
export const newPaymentId = (): string => `pay_${randomBase62(20)}`;
export const newRequestId = (): string => `req_${randomBase62(16)}`;
export const newEventId = (): string => `evt_${randomBase62(22)}`;
export const newDeliveryId = (): string => `dlv_${randomBase62(20)}`;
export const newEmailId = (): string => `eml_${randomBase62(20)}`;
export const newSourceId = (): string => `src_${randomBase62(16)}`;
export const newEndpointId = (): string => `we_${randomBase62(16)}`;
export const newAuditId = (): string => `aud_${randomBase62(20)}`;
export const newAttemptId = (): string => `att_${randomBase62(20)}`;
