import type { Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import type { IpNetwork } from '../../domain/ip-networks.js';
import { literalHostRefusal } from '../../domain/webhook-url.js';
import type { Deps } from '../../services/deps.js';
import type { Mode, PaymentSourcesTable } from '../../storage/schema.js';
import { insertSource, parseJsonObject, parseMode, requireMerchant } from '../common.js';
import { MAX_REQUEST_BODY_BYTES } from '../../net/guarded-get.js';
import { DEFAULT_MAPPING, MAPPING_PRESETS, offsetMinutes, type FeedMapping } from './parse.js';

const MIN_INTERVAL_SECONDS = 5;
const MAX_INTERVAL_SECONDS = 86_400;

export type FeedMethod = 'GET' | 'POST';

export interface FeedConfig {
  mode: Mode;
  url: string;
  method: FeedMethod;
  /** Sent with every poll, by name as given; their values are secrets (an account's token). */
  headers: Record<string, string>;
  /** A POST's body, sent as is; a secret (it carries the account's login). */
  body: string | null;
  intervalSeconds: number;
  mapping: FeedMapping;
}

/** Headers a feed may not set: they would break or smuggle the request (Node sets them itself). */
const REFUSED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
]);
const MAX_HEADERS = 20;
const MAX_HEADER_VALUE = 4096;
/** A header's name: an RFC 9110 token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

/** What a feed remembers between polls (payment_sources.state). */
export interface FeedState {
  /** Ids of entries already recorded, newest first, bounded: saves re-recording a feed's whole window. */
  seen: string[];
  failures: number;
  lastError: string | null;
  lastPolledAt: number | null;
  lastSuccessAt: number | null;
}

export interface FeedSourceCreated {
  id: string;
  type: 'feed';
  merchant_id: string;
  mode: Mode;
  url: string;
  method: FeedMethod;
  /** Names as given, values masked. */
  headers: Record<string, string>;
  /** Masked: null when there is none. */
  body: string | null;
  interval_seconds: number;
  mapping: FeedMapping;
}

export interface FeedSourceInput {
  merchantId: string;
  mode?: string;
  url: string;
  /** GET (the default) or POST. */
  method?: unknown;
  /** `Name: value` lines, as `--header` takes them. */
  headers?: readonly string[];
  body?: unknown;
  intervalSeconds: unknown;
  /** A mapping object over the defaults, or a preset's name (MAPPING_PRESETS). */
  mapping?: unknown;
  actor?: Actor;
  name?: string | null;
}

export async function addFeedSource(deps: Deps, input: FeedSourceInput): Promise<FeedSourceCreated> {
  await requireMerchant(deps, input.merchantId);
  const method = checkMethod(input.method);
  const config: FeedConfig = {
    mode: parseMode(input.mode),
    url: checkFeedUrl(input.url, deps.config.webhookAllowNetworks),
    method,
    headers: checkHeaders(input.headers ?? []),
    body: checkBody(input.body, method),
    intervalSeconds: checkInterval(input.intervalSeconds),
    mapping: checkMapping(input.mapping),
  };
  const id = await insertSource(deps, {
    merchantId: input.merchantId,
    type: 'feed',
    config,
    polled: true,
    actor: input.actor,
    name: input.name,
  });
  return {
    id,
    type: 'feed',
    merchant_id: input.merchantId,
    mode: config.mode,
    url: config.url,
    method: config.method,
    headers: maskHeaders(config.headers),
    body: maskBody(config.body),
    interval_seconds: config.intervalSeconds,
    mapping: config.mapping,
  };
}

/** Header values are an account's credentials: names kept, values masked, as a URL's query values. */
export function maskHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.keys(headers).map((name) => [name, '***']));
}

/** A feed's body carries the account's username and token: never shown, only whether there is one. */
export function maskBody(body: string | null): string | null {
  return body === null ? null : '***';
}

function checkMethod(raw: unknown): FeedMethod {
  if (raw === undefined || raw === null || raw === '') return 'GET';
  const method = typeof raw === 'string' ? raw.trim().toUpperCase() : '';
  if (method !== 'GET' && method !== 'POST')
    throw new AppError('invalid_parameter', 'method must be GET or POST', { param: 'method' });
  return method;
}

/** `Name: value` lines into headers; names that would break the request, and CR or LF in a value, are refused. */
export function checkHeaders(lines: readonly string[]): Record<string, string> {
  const fail = (message: string): never => {
    throw new AppError('invalid_parameter', `header: ${message}`, { param: 'header' });
  };
  if (lines.length > MAX_HEADERS) fail(`at most ${MAX_HEADERS} headers`);
  const headers: Record<string, string> = {};
  const names = new Set<string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon < 0) fail('must look like "Name: value"');
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (!HEADER_NAME.test(name)) fail(`${JSON.stringify(name.slice(0, 40))} is not a header name`);
    const lower = name.toLowerCase();
    if (REFUSED_HEADERS.has(lower)) fail(`${name} is set by the gateway itself`);
    if (names.has(lower)) fail(`${name} is given twice`);
    // CR or LF would end the header early (a smuggled header); other control characters are no text.
    if (/[\r\n]/.test(value)) fail(`the value of ${name} has a line break`);
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) fail(`the value of ${name} has a control character`);
    if (value.length > MAX_HEADER_VALUE) fail(`the value of ${name} is longer than ${MAX_HEADER_VALUE} characters`);
    names.add(lower);
    headers[name] = value;
  }
  return headers;
}

function checkBody(raw: unknown, method: FeedMethod): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw !== 'string') throw new AppError('invalid_parameter', 'body must be text', { param: 'body' });
  if (method === 'GET')
    throw new AppError('invalid_parameter', 'body needs --method POST: a GET carries no body', { param: 'body' });
  if (Buffer.byteLength(raw, 'utf8') > MAX_REQUEST_BODY_BYTES) {
    throw new AppError('invalid_parameter', `body must be at most ${MAX_REQUEST_BODY_BYTES} bytes`, { param: 'body' });
  }
  return raw;
}

/**
 * The Content-Type a feed's body is sent with: the one given with --header, else JSON when the body
 * is a JSON object or array, else a form.
 */
export function feedContentType(config: Pick<FeedConfig, 'headers' | 'body'>): string | null {
  if (config.body === null) return null;
  const given = Object.entries(config.headers).find(([name]) => name.toLowerCase() === 'content-type');
  if (given) return given[1];
  try {
    const parsed: unknown = JSON.parse(config.body);
    if (typeof parsed === 'object' && parsed !== null) return 'application/json';
  } catch {
    // not JSON: a form
  }
  return 'application/x-www-form-urlencoded';
}

function checkFeedUrl(raw: unknown, allow: readonly IpNetwork[]): string {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new AppError('invalid_parameter', 'url must be an absolute http(s) URL', { param: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('invalid_parameter', 'url must start with http:// or https://', { param: 'url' });
  }
  // The poller's guard would refuse it at every poll: said now, as for a webhook.
  const refused = literalHostRefusal(url, allow);
  if (refused !== null) throw new AppError('invalid_parameter', `url ${refused}`, { param: 'url' });
  return url.toString();
}

function checkInterval(raw: unknown): number {
  const text = typeof raw === 'number' ? String(raw) : raw;
  if (
    typeof text !== 'string' ||
    !/^[0-9]{1,6}$/.test(text) ||
    Number(text) < MIN_INTERVAL_SECONDS ||
    Number(text) > MAX_INTERVAL_SECONDS
  ) {
    throw new AppError(
      'invalid_parameter',
      `interval must be whole seconds from ${MIN_INTERVAL_SECONDS} to ${MAX_INTERVAL_SECONDS}`,
      { param: 'interval' },
    );
  }
  return Number(text);
}

/** A partial mapping over the defaults; unknown keys are refused so a typo is not silently ignored. */
export function checkMapping(raw: unknown): FeedMapping {
  if (raw === undefined || raw === null) return { ...DEFAULT_MAPPING };
  const fail = (message: string): never => {
    throw new AppError('invalid_parameter', `mapping: ${message}`, { param: 'mapping' });
  };
  if (typeof raw === 'string') {
    const preset = mappingPreset(raw);
    if (preset === null)
      fail(`no preset named ${JSON.stringify(raw.slice(0, 40))} (known: ${Object.keys(MAPPING_PRESETS).join(', ')})`);
    return { ...preset! };
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) fail('must be a JSON object');
  const mapping: FeedMapping = { ...DEFAULT_MAPPING };
  const nullable = new Set(['type', 'id', 'reference', 'issuer', 'payer']);
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!(key in DEFAULT_MAPPING)) fail(`unknown key ${JSON.stringify(key)}`);
    if (value === null && nullable.has(key)) {
      (mapping as unknown as Record<string, unknown>)[key] = null;
      continue;
    }
    const emptyAllowed = key === 'items';
    if (typeof value !== 'string' || (value === '' && !emptyAllowed) || value.length > 100)
      fail(`${key} must be a non-empty string${nullable.has(key) ? ' or null' : ''}`);
    (mapping as unknown as Record<string, unknown>)[key] = value;
  }
  if (offsetMinutes(mapping.utcOffset) === null) fail('utcOffset must look like +07:00');
  return mapping;
}

/** The preset mapping of that name, or null. */
export function mappingPreset(name: string): FeedMapping | null {
  const key = name.trim();
  return Object.hasOwn(MAPPING_PRESETS, key) ? MAPPING_PRESETS[key]! : null;
}

export function readFeedConfig(row: PaymentSourcesTable): FeedConfig {
  const raw = parseJsonObject(row.config);
  const headers =
    typeof raw.headers === 'object' && raw.headers !== null && !Array.isArray(raw.headers)
      ? (raw.headers as Record<string, unknown>)
      : {};
  return {
    mode: raw.mode === 'test' ? 'test' : 'live',
    url: String(raw.url ?? ''),
    // Feeds stored before POST existed have neither: a GET without headers.
    method: raw.method === 'POST' ? 'POST' : 'GET',
    headers: Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => typeof e[1] === 'string')),
    body: typeof raw.body === 'string' ? raw.body : null,
    intervalSeconds: typeof raw.intervalSeconds === 'number' ? raw.intervalSeconds : 60,
    mapping: {
      ...DEFAULT_MAPPING,
      ...(typeof raw.mapping === 'object' && raw.mapping !== null ? (raw.mapping as Partial<FeedMapping>) : {}),
    },
  };
}

export function readFeedState(text: string | null): FeedState {
  const raw = parseJsonObject(text);
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    seen: Array.isArray(raw.seen) ? raw.seen.filter((s): s is string => typeof s === 'string') : [],
    failures: num(raw.failures) ?? 0,
    lastError: typeof raw.lastError === 'string' ? raw.lastError : null,
    lastPolledAt: num(raw.lastPolledAt),
    lastSuccessAt: num(raw.lastSuccessAt),
  };
}
