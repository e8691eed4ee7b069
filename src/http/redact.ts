import { API_KEY_LIKE } from '../domain/api-key.js';

// The key may arrive in the query string; it must never reach a log line. The URL is rewritten before
// logging, and every log line is scrubbed of anything shaped like a key as a second line of defence.
// Both look through percent-encoding: `?api%6Bey=%73k_test_...` authenticates exactly like the plain
// spelling (the query parser decodes names and values), so it must be redacted like it too.
const SECRET_PARAMS = new Set(['apikey', 'api_key', 'key']);
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

export function redactUrl(url: string): string {
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
      if (eq !== -1 && (SECRET_PARAMS.has(looseDecode(name).toLowerCase()) || looksLikeKey(pair))) return `${name}=[REDACTED]`;
      return pair;
    })
    .join('&');
  return `${path}?${query}`;
}

export function scrubSecrets(line: string): string {
  const out = line.replace(API_KEY_LIKE, '[REDACTED]').replace(/((?:%3F|%26|[?&])apikey(?:=|%3D))[^&#"\s\\]*/gi, '$1[REDACTED]');
  if (!out.includes('%')) return out;
  return out.replace(/[A-Za-z0-9_%]{12,}/g, (run) => (run.includes('%') && looksLikeKey(run) ? '[REDACTED]' : run));
}
