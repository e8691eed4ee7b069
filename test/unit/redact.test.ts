import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API_KEY_LIKE } from '../../src/domain/api-key.js';
import { redactUrl, scrubSecrets } from '../../src/http/redact.js';

// redactUrl and scrubSecrets skip their work when a quick check shows nothing could be redacted. These
// tests hold the fast paths to exactly what the full rewrite does.

const KEY = `sk_live_${'k3Y'.repeat(14)}`;
const SECRET = KEY.slice(8);

// Pieces that build URLs near every edge: separators, escapes of k/s/_/%, case and Unicode spellings.
const PIECES = [
  '/',
  '?',
  '&',
  '=',
  '%',
  '%6B',
  '%6b',
  '%73',
  '%5F',
  '%25',
  '%3D',
  '%26',
  '%3F',
  'k',
  'K',
  '\u212A',
  'e',
  'E',
  'y',
  'Y',
  'api',
  'API',
  'api_',
  'key',
  'KEY',
  '\u212Aey',
  'sk_',
  'SK_',
  'sk_live_',
  'sk_test_',
  'test_',
  'live_',
  'abcdefgh',
  'XYZ12345',
  SECRET,
  '_',
  'x',
  'trx_',
  '.png',
  'amount',
  '10000',
  '#',
  ' ',
  '"',
  '\\',
];
const urlLike = fc.array(fc.constantFrom(...PIECES), { maxLength: 14 }).map((p) => p.join(''));

describe('redactUrl fast path', () => {
  it('returns a URL with no %, sk_ or key in any case as it is', () => {
    for (const url of [
      '/api/payment-gateway/cstatus?trxid=trx_4k2Jd8sLq0Xb1Yc7Vn3Mz9aQ',
      '/api/payment-gateway/qr/trx_4k2Jd8sLq0Xb1Yc7Vn3Mz9aQ.png',
      '/api/payment-gateway/cstatus?limit=20&status=paid',
      '/healthz',
      '/p?',
    ]) {
      expect(redactUrl(url)).toBe(url);
    }
  });

  it('still redacts keys in paths, plain and percent-encoded', () => {
    expect(redactUrl(`/p/${KEY}`)).toBe('/p/[REDACTED]');
    expect(redactUrl(`/p/${KEY}/x.png?amount=1`)).toBe('/p/[REDACTED]/x.png?amount=1');
    expect(redactUrl(`/p/%73${KEY.slice(1)}`)).toBe('/p/[REDACTED]');
    expect(redactUrl(`/p/sk%5Flive%5F${SECRET}`)).toBe('/p/[REDACTED]');
    expect(redactUrl(`/p/%2573${KEY.slice(1)}`)).toBe('/p/[REDACTED]');
    expect(redactUrl(`/${KEY}?x=1`)).toBe('/[REDACTED]?x=1');
  });

  it('still redacts the key parameter in every spelling, and key-like values under any name', () => {
    const cases: Array<[string, string]> = [
      ['/p?apikey=abc', '/p?apikey=[REDACTED]'],
      ['/p?ApiKey=abc', '/p?ApiKey=[REDACTED]'],
      ['/p?API_KEY=abc&b=2', '/p?API_KEY=[REDACTED]&b=2'],
      ['/p?a=1&Key=abc', '/p?a=1&Key=[REDACTED]'],
      // The Kelvin sign lowercases to k, and the full rewrite compares lowercased names.
      ['/p?api\u212Aey=abc', '/p?api\u212Aey=[REDACTED]'],
      ['/p?\u212Aey=abc', '/p?\u212Aey=[REDACTED]'],
      ['/p?api%6Bey=abc', '/p?api%6Bey=[REDACTED]'],
      ['/p?%61pikey=abc', '/p?%61pikey=[REDACTED]'],
      ['/p?api%256Bey=abc', '/p?api%256Bey=[REDACTED]'],
      [`/p?ref=${KEY}`, '/p?ref=[REDACTED]'],
      [`/p?ref=%73${KEY.slice(1)}`, '/p?ref=[REDACTED]'],
      [`/p?ref=sk_live%5F${SECRET}`, '/p?ref=[REDACTED]'],
      [`/p?${KEY}`, '/p?[REDACTED]'],
      [`/p?x=1&%73${KEY.slice(1)}`, '/p?x=1&[REDACTED]'],
    ];
    for (const [input, expected] of cases) expect(redactUrl(input), input).toBe(expected);
  });

  it('agrees with the full rewrite on any URL', () => {
    // A trailing `%` item forces the full rewrite and is itself left alone, so it gives the reference.
    fc.assert(
      fc.property(urlLike, (url) => {
        const forced = url.includes('?') ? `${url}&%` : `${url}?%`;
        expect(`${redactUrl(url)}${forced.slice(url.length)}`).toBe(redactUrl(forced));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('scrubSecrets fast path', () => {
  // The rewrite without its guards, as the reference.
  const unguarded = (line: string): string => {
    const out = line
      .replace(API_KEY_LIKE, '[REDACTED]')
      .replace(/((?:%3F|%26|[?&])apikey(?:=|%3D))[^&#"\s\\]*/gi, '$1[REDACTED]');
    if (!out.includes('%')) return out;
    return out.replace(/[A-Za-z0-9_%]{12,}/g, (run) =>
      run.includes('%') && KEYLIKE_DECODED(run) ? '[REDACTED]' : run,
    );
  };
  // Decoding as redact.ts does (three rounds), to test KEY_LIKE through escapes.
  const KEYLIKE_DECODED = (run: string): boolean => {
    let text = run;
    for (let i = 0; i < 3; i++)
      text = text.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    return new RegExp(API_KEY_LIKE.source).test(text);
  };

  it('returns a plain access line as it is', () => {
    const line =
      '{"level":30,"reqId":"req_AbCdEfGh12345678","method":"GET","url":"/api/payment-gateway/cstatus?trxid=trx_x","status":200,"msg":"request"}\n';
    expect(scrubSecrets(line)).toBe(line);
  });

  it('still scrubs keys, apikey parameters in any case, and encoded keys', () => {
    expect(scrubSecrets(`{"note":"${KEY}"}`)).toBe('{"note":"[REDACTED]"}');
    expect(scrubSecrets('{"url":"/p?APIKEY=short&x=1"}')).toBe('{"url":"/p?APIKEY=[REDACTED]&x=1"}');
    expect(scrubSecrets('{"url":"/p%3FapiKey%3Dshort"}')).toBe('{"url":"/p%3FapiKey%3D[REDACTED]"}');
    expect(scrubSecrets(`{"url":"/p?a=%73%6B%5F%6C%69%76%65%5F${SECRET}"}`)).not.toContain(SECRET.slice(0, 12));
  });

  it('agrees with the unguarded rewrite on any line', () => {
    fc.assert(
      fc.property(urlLike, (text) => {
        const line = `{"msg":"request","url":${JSON.stringify(text)}}`;
        expect(scrubSecrets(line)).toBe(unguarded(line));
      }),
      { numRuns: 5000 },
    );
  });
});
