// Verifying the gateway's webhook deliveries. Standard Webhooks (https://www.standardwebhooks.com):
// `webhook-signature: v1,<base64 HMAC-SHA256(base64-decoded secret, "<webhook-id>.<webhook-timestamp>.<body>")>`.
// Deliveries also carry the older `X-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret text, "<t>.<body>")>`,
// which is checked only when the standard headers are absent (a gateway older than both).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './api-types.js';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far the signed time may be from now, either way (refuses replays). Default 300 seconds. */
  toleranceSeconds?: number;
  /** Now, in milliseconds since the epoch (tests). */
  now?: number;
}

/**
 * Checks a delivery and returns its event. `rawBody` must be the body exactly as received (bytes or their
 * text), before any JSON parsing; `secret` is the endpoint's `whsec_...`, or several while rotating.
 * Throws WebhookVerificationError when the delivery is not the gateway's, was altered, or is too old.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === ''))
    throw new TypeError('verifyWebhook needs the endpoint secret (whsec_...)');
  const body =
    typeof rawBody === 'string'
      ? Buffer.from(rawBody, 'utf8')
      : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const tolerance = options.toleranceSeconds ?? 300;
  const nowSeconds = (options.now ?? Date.now()) / 1000;

  const id = header(headers, 'webhook-id');
  const signature = header(headers, 'webhook-signature');
  let checkedId: string | null = null;
  if (signature !== null) {
    const timestamp = header(headers, 'webhook-timestamp');
    if (id === null || timestamp === null)
      throw new WebhookVerificationError('webhook-id and webhook-timestamp are required with webhook-signature');
    checkTimestamp(timestamp, nowSeconds, tolerance);
    const keys = secrets.map(standardKey);
    const expected = keys.map((key) =>
      createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(body).digest(),
    );
    const given = signature
      .split(' ')
      .filter((part) => part.startsWith('v1,'))
      .map((part) => Buffer.from(part.slice(3), 'base64'));
    if (!anyEqual(given, expected))
      throw new WebhookVerificationError('no webhook-signature matches this body and secret');
    checkedId = id;
  } else {
    const legacy = header(headers, 'x-signature');
    if (legacy === null)
      throw new WebhookVerificationError('the delivery carries no signature (webhook-signature or X-Signature)');
    const parts = new Map<string, string[]>();
    for (const part of legacy.split(',')) {
      const eq = part.indexOf('=');
      if (eq > 0)
        parts.set(part.slice(0, eq).trim(), [
          ...(parts.get(part.slice(0, eq).trim()) ?? []),
          part.slice(eq + 1).trim(),
        ]);
    }
    const t = parts.get('t');
    if (t?.length !== 1) throw new WebhookVerificationError('X-Signature has no single t=');
    checkTimestamp(t[0]!, nowSeconds, tolerance);
    const given = (parts.get('v1') ?? []).filter((v) => /^[0-9a-fA-F]{64}$/.test(v)).map((v) => Buffer.from(v, 'hex'));
    const expected = secrets.map((s) => createHmac('sha256', s).update(`${t[0]}.`, 'utf8').update(body).digest());
    if (!anyEqual(given, expected)) throw new WebhookVerificationError('no X-Signature matches this body and secret');
  }

  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('the signed body is not JSON');
  }
  if (
    typeof event !== 'object' ||
    event === null ||
    typeof (event as { id?: unknown }).id !== 'string' ||
    typeof (event as { type?: unknown }).type !== 'string'
  ) {
    throw new WebhookVerificationError('the signed body is not a webhook event');
  }
  // The id is signed along with the body, and must name this very event.
  if (checkedId !== null && (event as { id: string }).id !== checkedId)
    throw new WebhookVerificationError('webhook-id does not match the event id');
  return event as WebhookEvent;
}

/** The HMAC key of a Standard Webhooks secret: the base64 after `whsec_`. */
function standardKey(secret: string): Buffer {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 === 1)
    throw new TypeError('the webhook secret is not whsec_ followed by base64');
  return Buffer.from(encoded, 'base64');
}

function checkTimestamp(value: string, nowSeconds: number, tolerance: number): void {
  if (!/^\d{1,12}$/.test(value)) throw new WebhookVerificationError('the signature timestamp is malformed');
  if (Math.abs(nowSeconds - Number(value)) > tolerance)
    throw new WebhookVerificationError(
      'the signature timestamp is outside the tolerance (a replay, or a clock far off)',
    );
}

function anyEqual(given: Buffer[], expected: Buffer[]): boolean {
  let match = false;
  // Every pair is compared, in constant time, so the timing tells nothing about which one matched.
  for (const g of given) for (const e of expected) if (g.length === e.length && timingSafeEqual(g, e)) match = true;
  return match;
}

function header(headers: WebhookHeaders, name: string): string | null {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}
