// A SNAP BI source's configuration (the JSON of `source add --type snap --config FILE`), validated
// field by field so an operator learns exactly which line of the file is wrong.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { AppError } from '../../domain/errors.js';
import type { Mode } from '../../storage/schema.js';
import type { SignatureEncoding } from './signature.js';

export type SnapOutcome = 'paid' | 'pending' | 'cancelled' | 'failed';

export interface SnapConfig {
  baseUrl: string;
  pathPrefix: string;
  partnerId: string;
  clientId: string;
  clientSecret: string;
  privateKeyPem: string;
  acquirerPublicKeyPem: string;
  merchantId: string;
  terminalId: string;
  channelId: string;
  notifyVerification: 'asymmetric' | 'symmetric';
  signatureEncoding: SignatureEncoding;
  notifyPath: string;
  /** Overrides over DEFAULT_STATUS_MAP, keyed by latestTransactionStatus. */
  statusMap: Record<string, SnapOutcome>;
  /** The longest life the acquirer gives a code; a transaction's expiry is capped to it. */
  validitySeconds: number | null;
  timestampWindowSeconds: number;
  /** Which keys' transactions the acquirer issues; null means both test and live. */
  mode: Mode | null;
}

/** A parsed configuration with its keys ready for crypto calls. */
export interface SnapSource {
  id: string;
  merchantId: string;
  config: SnapConfig;
  privateKey: KeyObject;
  acquirerPublicKey: KeyObject;
}

export const DEFAULT_NOTIFY_PATH = '/snap/v1.0/qr/qr-mpm-notify';

// SNAP's latestTransactionStatus codes. 07 "not found" stays pending: a query may run before the
// acquirer has seen the payer; 04 "refunded" is no longer payable.
const DEFAULT_STATUS_MAP: Readonly<Record<string, SnapOutcome>> = {
  '00': 'paid',
  '01': 'pending',
  '02': 'pending',
  '03': 'pending',
  '04': 'cancelled',
  '05': 'cancelled',
  '06': 'failed',
  '07': 'pending',
  '08': 'cancelled',
  '09': 'failed',
};

export function outcomeOf(config: SnapConfig, status: string): SnapOutcome {
  return config.statusMap[status] ?? DEFAULT_STATUS_MAP[status] ?? 'pending';
}

const FIELDS: ReadonlySet<string> = new Set([
  'baseUrl',
  'pathPrefix',
  'partnerId',
  'clientId',
  'clientSecret',
  'privateKeyPem',
  'acquirerPublicKeyPem',
  'merchantId',
  'terminalId',
  'channelId',
  'notifyVerification',
  'signatureEncoding',
  'notifyPath',
  'statusMap',
  'validitySeconds',
  'timestampWindowSeconds',
  'mode',
]);
const OUTCOMES: ReadonlySet<SnapOutcome> = new Set<SnapOutcome>(['paid', 'pending', 'cancelled', 'failed']);
// Values that travel in HTTP headers: printable ASCII without spaces at the ends.
const HEADER_SAFE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;
const PATH = /^(\/[A-Za-z0-9._~-]+)+$/;

function bad(field: string, message: string): never {
  throw new AppError('invalid_parameter', `SNAP config: ${field} ${message}`, { param: field });
}

function text(o: Record<string, unknown>, field: string, max: number, pattern = HEADER_SAFE): string {
  const v = o[field];
  if (v === undefined || v === null || v === '') bad(field, 'is required');
  if (typeof v !== 'string') bad(field, 'must be a string');
  if (v.length > max) bad(field, `must be at most ${max} characters`);
  if (!pattern.test(v)) bad(field, 'has characters that cannot be sent in an HTTP header');
  return v;
}

function integer(o: Record<string, unknown>, field: string, min: number, max: number): number | null {
  const v = o[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    bad(field, `must be a whole number from ${min} to ${max}`);
  return v;
}

function oneOf<T extends string>(
  o: Record<string, unknown>,
  field: string,
  choices: readonly T[],
  fallback: T | null,
): T {
  const v = o[field];
  if ((v === undefined || v === null) && fallback !== null) return fallback;
  if (typeof v !== 'string' || !choices.includes(v as T))
    bad(field, `must be one of ${choices.map((c) => `"${c}"`).join(', ')}`);
  return v as T;
}

function baseUrl(o: Record<string, unknown>): string {
  const raw = text(o, 'baseUrl', 2048);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    bad('baseUrl', `is not a URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') bad('baseUrl', 'must be an http(s) URL');
  if (url.search || url.hash || url.username || url.password)
    bad('baseUrl', 'must have no query, fragment or credentials');
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

function optionalPath(o: Record<string, unknown>, field: string, fallback: string): string {
  const v = o[field];
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v !== 'string' || v.length > 200 || !PATH.test(v)) {
    bad(field, 'must be a path like /snap-adapter/b2b (segments of letters, digits, . _ ~ -; no trailing slash)');
  }
  return v;
}

function key(o: Record<string, unknown>, field: string, kind: 'private' | 'public'): KeyObject {
  const pem = o[field];
  if (typeof pem !== 'string' || pem.trim() === '') bad(field, 'is required (a PEM text)');
  if (!pem.includes('-----BEGIN')) bad(field, 'is not a PEM text (expected -----BEGIN ... -----)');
  let k: KeyObject;
  try {
    k = kind === 'private' ? createPrivateKey(pem) : createPublicKey(pem);
  } catch (err) {
    bad(field, `is not a readable ${kind} key: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (k.asymmetricKeyType !== 'rsa') bad(field, `must be an RSA key, got ${k.asymmetricKeyType ?? 'unknown'}`);
  const bits = k.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 2048) bad(field, `must be at least 2048 bits, got ${bits}`);
  return k;
}

function statusMap(o: Record<string, unknown>): Record<string, SnapOutcome> {
  const v = o.statusMap;
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) bad('statusMap', 'must be an object like {"02": "paid"}');
  const out: Record<string, SnapOutcome> = {};
  for (const [code, outcome] of Object.entries(v)) {
    if (!/^[0-9]{2}$/.test(code))
      bad('statusMap', `key ${JSON.stringify(code)} is not a 2-digit latestTransactionStatus`);
    if (!OUTCOMES.has(outcome as SnapOutcome))
      bad('statusMap', `value for ${code} must be paid, pending, cancelled or failed`);
    out[code] = outcome as SnapOutcome;
  }
  return out;
}

/** Validates raw JSON (from a file or the database) into a SnapConfig; AppError('invalid_parameter'). */
export function parseSnapConfig(raw: unknown): SnapConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new AppError('invalid_parameter', 'SNAP config must be a JSON object');
  }
  const o = raw as Record<string, unknown>;
  // A misspelt optional field would otherwise be ignored silently and its default used.
  const unknown = Object.keys(o).filter((k) => !FIELDS.has(k));
  if (unknown.length > 0) bad(unknown[0]!, `is not a SNAP config field (known: ${[...FIELDS].join(', ')})`);
  const config: SnapConfig = {
    baseUrl: baseUrl(o),
    pathPrefix: optionalPath(o, 'pathPrefix', ''),
    partnerId: text(o, 'partnerId', 64),
    clientId: text(o, 'clientId', 128),
    clientSecret: text(o, 'clientSecret', 512),
    privateKeyPem: o.privateKeyPem as string,
    acquirerPublicKeyPem: o.acquirerPublicKeyPem as string,
    merchantId: text(o, 'merchantId', 64),
    terminalId: text(o, 'terminalId', 64),
    channelId: text(o, 'channelId', 32),
    notifyVerification: oneOf(o, 'notifyVerification', ['asymmetric', 'symmetric'] as const, null),
    signatureEncoding: oneOf(o, 'signatureEncoding', ['base64', 'hex'] as const, 'base64'),
    notifyPath: optionalPath(o, 'notifyPath', DEFAULT_NOTIFY_PATH),
    statusMap: statusMap(o),
    validitySeconds: integer(o, 'validitySeconds', 60, 30 * 86_400),
    timestampWindowSeconds: integer(o, 'timestampWindowSeconds', 10, 3600) ?? 300,
    mode: o.mode === undefined || o.mode === null ? null : oneOf(o, 'mode', ['test', 'live'] as const, null),
  };
  // Notifications are served by the gateway's /snap/* route (see notify-route.ts).
  if (!config.notifyPath.startsWith('/snap/')) bad('notifyPath', 'must begin with /snap/');
  if (config.notifyPath.endsWith('/v1.0/access-token/b2b')) bad('notifyPath', 'must not be the access-token path');
  key(o, 'privateKeyPem', 'private');
  key(o, 'acquirerPublicKeyPem', 'public');
  return config;
}

/** The stored row's config, parsed and with its keys loaded. */
export function loadSnapSource(id: string, merchantId: string, configJson: string): SnapSource {
  const config = parseSnapConfig(JSON.parse(configJson));
  return {
    id,
    merchantId,
    config,
    privateKey: createPrivateKey(config.privateKeyPem),
    acquirerPublicKey: createPublicKey(config.acquirerPublicKeyPem),
  };
}
