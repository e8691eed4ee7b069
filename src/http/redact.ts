import { API_KEY_LIKE } from '../domain/api-key.js';

// The key may arrive in the query string; it must never reach a log line. The URL is rewritten before
// logging, and every log line is scrubbed of anything shaped like a key as a second line of defence.
const APIKEY_PARAM = /([?&](?:apikey|api_key|key)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(APIKEY_PARAM, '$1[REDACTED]').replace(API_KEY_LIKE, '[REDACTED]');
}

export function scrubSecrets(line: string): string {
  return line.replace(API_KEY_LIKE, '[REDACTED]').replace(/((?:%3F|%26|[?&])apikey(?:=|%3D))[^&#"\s\\]*/gi, '$1[REDACTED]');
}
