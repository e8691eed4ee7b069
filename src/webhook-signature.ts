// Webhook signatures, for the gateway (signing) and for integrators (verifying). This file depends on
// node:crypto only, so a receiver can import it without pulling in the gateway.
//
// Two schemes, both on every delivery:
// - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`): signStandardWebhook and
//   verifyStandardWebhook, below; any Standard Webhooks library verifies them too.
// - The older `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. The key
//   is the whole endpoint secret as UTF-8 text, `whsec_` prefix included. Several `v1=` entries may
//   appear (one per secret while a secret is being rotated); one match is enough.
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
  return typeof payload === 'string'
    ? Buffer.from(payload, 'utf8')
    : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
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
  const nowMs =
    options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
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

// Standard Webhooks (https://www.standardwebhooks.com), sent beside X-Signature on every delivery:
//   webhook-id: <event id>             the same on every attempt and resend: the receiver's idempotency key
//   webhook-timestamp: <unix seconds>  of this attempt
//   webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>
// Here the key is not the secret's text but its bytes: the secret without `whsec_`, base64-decoded.
// Several signatures may appear, separated by spaces; one match is enough.

export interface StandardWebhookHeaders {
  /** The `webhook-id` header. */
  id: string | readonly string[] | null | undefined;
  /** The `webhook-timestamp` header. */
  timestamp: string | readonly string[] | null | undefined;
  /** The `webhook-signature` header. */
  signature: string | readonly string[] | null | undefined;
}

export interface VerifyStandardWebhookOptions {
  /** The request body exactly as received: the raw bytes or their text, before any JSON parsing. */
  payload: WebhookPayload;
  /** The three headers as received (a header sent twice, which Node gives as an array, is refused). */
  headers: StandardWebhookHeaders;
  /** The endpoint secret (`whsec_...`, or the bare base64), or several while rotating. */
  secret: string | readonly string[];
  /** How far the timestamp may be from now, either way. Default 300 seconds. */
  toleranceSeconds?: number;
  /** The current time as a Date or milliseconds since the epoch. Default: Date.now(). */
  now?: Date | number;
}

const SECRET_PREFIX = 'whsec_';
// Standard base64 (RFC 4648 section 4) with its padding, as the Standard Webhooks libraries decode it.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// A v1 signature is the base64 of one SHA-256 digest: 43 characters and one `=`.
const V1_SIGNATURE = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;
const MESSAGE_ID = /^[\x21-\x7e]{1,256}$/;
const TIMESTAMP = /^[0-9]{1,12}$/;

/**
 * The HMAC key of a Standard Webhooks secret: `whsec_` (optional) and standard base64. The gateway's
 * secrets of either generation qualify: `whsec_` + 32 base62 characters (24 bytes) and `whsec_` + the
 * base64 of 32 random bytes.
 */
function standardWebhookKey(secret: unknown): Buffer {
  if (typeof secret !== 'string') throw new TypeError('a Standard Webhooks secret must be a string');
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded === '' || !BASE64.test(encoded)) {
    throw new TypeError(
      'a Standard Webhooks secret is whsec_ followed by standard base64 (the endpoint secret the gateway printed)',
    );
  }
  return Buffer.from(encoded, 'base64');
}

function standardHmac(key: Buffer, id: string, timestamp: string, payload: WebhookPayload): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(bytes(payload)).digest();
}

/** The `webhook-signature` value for a body sent as message `id` at `timestampSeconds`. */
export function signStandardWebhook(
  secret: string,
  id: string,
  timestampSeconds: number,
  payload: WebhookPayload,
): string {
  const key = standardWebhookKey(secret);
  if (typeof id !== 'string' || !MESSAGE_ID.test(id))
    throw new TypeError('a webhook-id is 1 to 256 visible ASCII characters');
  if (!Number.isFinite(timestampSeconds) || timestampSeconds < 0)
    throw new TypeError('a webhook-timestamp is a time in unix seconds');
  const timestamp = String(Math.floor(timestampSeconds));
  return `v1,${standardHmac(key, id, timestamp, payload).toString('base64')}`;
}

/**
 * True when the headers carry a valid Standard Webhooks signature of this exact payload, made within
 * the tolerance. Missing, repeated or malformed headers, stale or future timestamps and wrong secrets
 * are all simply false; a secret that is not a Standard Webhooks secret throws (a bug in the receiver).
 */
export function verifyStandardWebhook(options: VerifyStandardWebhookOptions): boolean {
  const secrets = typeof options.secret === 'string' ? [options.secret] : [...options.secret];
  if (secrets.length === 0) throw new TypeError('verifyStandardWebhook needs the endpoint secret');
  const keys = secrets.map(standardWebhookKey);

  const { id, timestamp, signature } = options.headers;
  if (typeof id !== 'string' || !MESSAGE_ID.test(id)) return false;
  if (typeof timestamp !== 'string' || !TIMESTAMP.test(timestamp)) return false;
  if (typeof signature !== 'string' || signature.length > 4096) return false;

  const signatures: Buffer[] = [];
  for (const entry of signature.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma === -1) continue;
    // Other versions (v1a, asymmetric) are ignored, so receivers keep working while senders add them.
    if (entry.slice(0, comma) === 'v1' && V1_SIGNATURE.test(entry.slice(comma + 1))) {
      signatures.push(Buffer.from(entry.slice(comma + 1), 'base64'));
    }
  }
  if (signatures.length === 0) return false;

  const tolerance = options.toleranceSeconds ?? 300;
  const nowMs =
    options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  if (!Number.isFinite(tolerance) || tolerance < 0) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > tolerance) return false;

  let valid = false;
  for (const key of keys) {
    const expected = standardHmac(key, id, timestamp, options.payload);
    // Every candidate is compared, in constant time, so timing tells nothing about which one matched.
    for (const candidate of signatures) if (timingSafeEqual(candidate, expected)) valid = true;
  }
  return valid;
}
