import { API_KEY_LIKE } from '../domain/api-key.js';

// The key may arrive in the query string; it must never reach a log line. The URL is rewritten before
// logging, and every log line is scrubbed of anything shaped like a key as a second line of defence.
// Both look through percent-encoding: `?api%6Bey=%73k_test_...` authenticates exactly like the plain
// spelling (the query parser decodes names and values), so it must be redacted like it too.
// `token` is a phone source's (issue 36): forwarder apps that can only send fixed values put it in the URL.
const SECRET_PARAMS: ReadonlySet<string> = new Set(['apikey', 'api_key', 'key', 'token']);
const KEY_LIKE = new RegExp(API_KEY_LIKE.source);
const ESCAPE = /%([0-9A-Fa-f]{2})/g;

/** Percent-decoding that never throws; repeated so that double encoding hides nothing either. */
function looseDecode(text: string): string {
  let current = text;
  for (let i = 0; i < 3 && current.includes('%'); i++) {
    const next = current.replace(ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === current) break;
    current = next;
  }
  return current;
}

const looksLikeKey = (text: string): boolean => KEY_LIKE.test(looseDecode(text));

// Fast paths for the common case, exact rather than heuristic: without a '%' nothing is decoded, so a
// key-like part needs a literal `sk_` and a secret parameter name a literal `key` or `token` in some case. The `u`
// flag makes `key` match every spelling whose toLowerCase() contains it (the Kelvin sign K too).
const MAYBE_SECRET_URL = /%|sk_|key|token/iu;
// scrubSecrets' second pattern is case-insensitive without `u`: only ASCII letters match it.
const APIKEY_WORD = /apikey/i;
const QUERY_APIKEY = /((?:%3F|%26|[?&])apikey(?:=|%3D))[^&#"\s\\]*/gi;

export function redactUrl(url: string): string {
  if (!MAYBE_SECRET_URL.test(url)) return url;
  const q = url.indexOf('?');
  const path = (q === -1 ? url : url.slice(0, q))
    .split('/')
    .map((segment) => (looksLikeKey(segment) ? '[REDACTED]' : segment))
    .join('/');
  if (q === -1) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      if (looksLikeKey(name)) return '[REDACTED]';
      if (eq !== -1 && (SECRET_PARAMS.has(looseDecode(name).toLowerCase()) || looksLikeKey(pair)))
        return `${name}=[REDACTED]`;
      return pair;
    })
    .join('&');
  return `${path}?${query}`;
}

export function scrubSecrets(line: string): string {
  // Each replacement runs only when its pattern can match at all (a key-like run contains `sk_`).
  let out = line.includes('sk_') ? line.replace(API_KEY_LIKE, '[REDACTED]') : line;
  if (APIKEY_WORD.test(out)) out = out.replace(QUERY_APIKEY, '$1[REDACTED]');
  if (!out.includes('%')) return out;
  return out.replace(/[A-Za-z0-9_%]{12,}/g, (run) => (run.includes('%') && looksLikeKey(run) ? '[REDACTED]' : run));
}
