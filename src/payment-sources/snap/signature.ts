// SNAP BI signatures (see docs/snap.md). Pure apart from node:crypto: no I/O, no clock.
import { createHash, createHmac, sign, timingSafeEqual, verify, type KeyObject } from 'node:crypto';

export type SignatureEncoding = 'base64' | 'hex';
type Key = KeyObject | string;

/**
 * JSON with insignificant whitespace removed and key order kept. It works on the raw text rather than
 * re-serialising, because the signature covers the sender's bytes: JSON.parse + stringify would
 * reorder nothing but could still change numbers (1.0 -> 1) or escapes (\u00e9 -> é).
 */
export function minifyJson(text: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
      out += ch;
    } else if (ch !== ' ' && ch !== '\t' && ch !== '\n' && ch !== '\r') {
      out += ch;
    }
  }
  return out;
}

/** Lower-case hex SHA-256 of the minified body; an empty body hashes as the empty string. */
export function bodyHash(body: string): string {
  return createHash('sha256').update(minifyJson(body), 'utf8').digest('hex');
}

export function accessTokenStringToSign(clientId: string, timestamp: string): string {
  return `${clientId}|${timestamp}`;
}

/** X-SIGNATURE of the B2B access-token request: Base64 SHA256withRSA over `clientId|timestamp`. */
export function signAccessToken(privateKey: Key, clientId: string, timestamp: string): string {
  return rsaSign(privateKey, accessTokenStringToSign(clientId, timestamp));
}

export function verifyAccessToken(publicKey: Key, clientId: string, timestamp: string, signature: string): boolean {
  return rsaVerify(publicKey, accessTokenStringToSign(clientId, timestamp), signature);
}

export interface SymmetricParts {
  method: string;
  /** The path exactly as sent, provider prefix included, without the query. */
  path: string;
  accessToken: string;
  body: string;
  timestamp: string;
}

export function symmetricStringToSign(p: SymmetricParts): string {
  return `${p.method.toUpperCase()}:${p.path}:${p.accessToken}:${bodyHash(p.body)}:${p.timestamp}`;
}

/** HMAC-SHA512 with the client secret, for transaction calls (and symmetric notifications). */
export function signSymmetric(
  clientSecret: string,
  parts: SymmetricParts,
  encoding: SignatureEncoding = 'base64',
): string {
  return createHmac('sha512', clientSecret).update(symmetricStringToSign(parts), 'utf8').digest(encoding);
}

/** Accepts Base64 or lower/upper-case hex, since providers differ; compares in constant time. */
export function verifySymmetric(clientSecret: string, parts: SymmetricParts, signature: string): boolean {
  const expected = createHmac('sha512', clientSecret).update(symmetricStringToSign(parts), 'utf8').digest();
  const given = decodeSignature(signature, expected.length);
  return given !== null && timingSafeEqual(given, expected);
}

export interface AsymmetricParts {
  method: string;
  path: string;
  body: string;
  timestamp: string;
}

export function asymmetricStringToSign(p: AsymmetricParts): string {
  return `${p.method.toUpperCase()}:${p.path}:${bodyHash(p.body)}:${p.timestamp}`;
}

/** SHA256withRSA over `METHOD:path:hash:timestamp` (no token): how many acquirers sign notifications. */
export function signAsymmetric(privateKey: Key, parts: AsymmetricParts): string {
  return rsaSign(privateKey, asymmetricStringToSign(parts));
}

export function verifyAsymmetric(publicKey: Key, parts: AsymmetricParts, signature: string): boolean {
  return rsaVerify(publicKey, asymmetricStringToSign(parts), signature);
}

function rsaSign(privateKey: Key, data: string): string {
  return sign('sha256', Buffer.from(data, 'utf8'), privateKey).toString('base64');
}

function rsaVerify(publicKey: Key, data: string, signature: string): boolean {
  if (!BASE64.test(signature)) return false;
  try {
    return verify('sha256', Buffer.from(data, 'utf8'), publicKey, Buffer.from(signature, 'base64'));
  } catch {
    // A key of the wrong type or a malformed signature is a failed verification, not a crash.
    return false;
  }
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const HEX = /^[0-9a-fA-F]+$/;

function decodeSignature(signature: string, bytes: number): Buffer | null {
  // Lengths tell the encodings apart: hex of 64 bytes is 128 characters, Base64 is 88.
  if (signature.length === bytes * 2 && HEX.test(signature)) return Buffer.from(signature, 'hex');
  if (signature.length === Math.ceil(bytes / 3) * 4 && BASE64.test(signature)) {
    const buf = Buffer.from(signature, 'base64');
    return buf.length === bytes ? buf : null;
  }
  return null;
}

const WIB_OFFSET_MS = 7 * 3600 * 1000;

/** X-TIMESTAMP as providers expect it: ISO-8601 in Jakarta time with an explicit +07:00 offset. */
export function snapTimestamp(ms: number): string {
  return `${new Date(ms + WIB_OFFSET_MS).toISOString().slice(0, 19)}+07:00`;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch, or null unless the text is ISO-8601 with an offset (or Z). */
export function parseSnapTimestamp(text: string): number | null {
  if (!TIMESTAMP.test(text)) return null;
  // Date.parse takes at most millisecond precision; drop extra fraction digits first.
  const ms = Date.parse(text.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isFinite(ms) ? ms : null;
}
