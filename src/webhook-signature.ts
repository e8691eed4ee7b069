// Webhook signatures, for the gateway (signing) and for integrators (verifying). This file depends on
// node:crypto only, so a receiver can import it without pulling in the gateway.
//
// Header: `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. The key is
// the whole endpoint secret as UTF-8 text, `whsec_` prefix included. Several `v1=` entries may appear
// (one per secret while a secret is being rotated); one match is enough.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type WebhookPayload = string | Uint8Array;

export interface VerifyWebhookSignatureOptions {
  /** The request body exactly as received: the raw bytes or their text, before any JSON parsing. */
  payload: WebhookPayload;
  /** The `X-Signature` header value. */
  header: string | null | undefined;
  /** The endpoint secret (`whsec_...`), or several while rotating. */
  secret: string | readonly string[];
  /** How far the signature's timestamp may be from now, either way. Default 300 seconds. */
  toleranceSeconds?: number;
  /** The current time as a Date or milliseconds since the epoch. Default: Date.now(). */
  now?: Date | number;
}

function bytes(payload: WebhookPayload): Buffer {
  return typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
}

function hmac(secret: string, timestamp: string, payload: WebhookPayload): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(bytes(payload)).digest();
}

/** The `X-Signature` value for a body sent at `timestampSeconds`. */
export function signWebhookPayload(secret: string, payload: WebhookPayload, timestampSeconds: number): string {
  const t = String(Math.floor(timestampSeconds));
  return `t=${t},v1=${hmac(secret, t, payload).toString('hex')}`;
}

/**
 * True when the header carries a valid signature of this exact payload, made within the tolerance.
 * Malformed or missing headers, stale or future timestamps and wrong secrets are all simply false.
 */
export function verifyWebhookSignature(options: VerifyWebhookSignatureOptions): boolean {
  const secrets = typeof options.secret === 'string' ? [options.secret] : [...options.secret];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    // A missing secret is a bug in the receiver, not a bad request: say so loudly.
    throw new TypeError('verifyWebhookSignature needs the endpoint secret');
  }
  const header = options.header;
  if (typeof header !== 'string' || header.length > 4096) return false;

  let timestamp: string | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== null || !/^[0-9]{1,12}$/.test(value)) return false;
      timestamp = value;
    } else if (key === 'v1' && /^[0-9a-fA-F]{64}$/.test(value)) {
      signatures.push(Buffer.from(value, 'hex'));
    }
    // Other schemes (a future v2) are ignored, so receivers keep working while the gateway adds them.
  }
  if (timestamp === null || signatures.length === 0) return false;

  const tolerance = options.toleranceSeconds ?? 300;
  const nowMs = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  if (!Number.isFinite(tolerance) || tolerance < 0) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > tolerance) return false;

  let valid = false;
  for (const secret of secrets) {
    const expected = hmac(secret, timestamp, options.payload);
    // Every candidate is compared, in constant time, so timing tells nothing about which one matched.
    for (const candidate of signatures) if (timingSafeEqual(candidate, expected)) valid = true;
  }
  return valid;
}
