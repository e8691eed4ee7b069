import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src/domain/errors.js';
import { presentedKey } from '../../src/http/auth.js';

const K1 = `sk_test_${'a1'.repeat(20)}`;
const K2 = `sk_test_${'b2'.repeat(20)}`;

/** The rule, spelled out plainly: every key given (empty counts as not given) must be the same one. */
function expected(query: unknown, header: unknown, auth: string | undefined): string | null | 'mismatch' {
  const given: string[] = [];
  for (const v of [query, header]) {
    if (v === undefined) continue;
    const all = (Array.isArray(v) ? v : [v]).map(String);
    if (new Set(all).size > 1) return 'mismatch';
    if (all[0] !== '') given.push(all[0]!);
  }
  if (auth !== undefined && /^Bearer\s+/i.test(auth)) {
    const token = auth.replace(/^Bearer\s+/i, '').trim();
    if (token !== '') given.push(token);
  }
  if (new Set(given).size > 1) return 'mismatch';
  return given[0] ?? null;
}

function actual(query: unknown, header: unknown, auth: string | undefined): string | null | 'mismatch' {
  const headers: Record<string, unknown> = {};
  if (header !== undefined) headers['x-api-key'] = header;
  if (auth !== undefined) headers.authorization = auth;
  const request = { query: query === undefined ? {} : { apikey: query }, headers } as unknown as FastifyRequest;
  try {
    return presentedKey(request);
  } catch (err) {
    if (isAppError(err) && err.code === 'api_key_mismatch') return 'mismatch';
    throw err;
  }
}

describe('presentedKey', () => {
  it('takes the one key given, wherever it is, and rejects two different ones', () => {
    const values: unknown[] = [undefined, '', K1, K2, [K1, K1], [K1, K2], ['', K1], ['']];
    const auths = [undefined, '', `Bearer ${K1}`, `bearer   ${K2} `, 'Bearer ', `Basic ${K1}`, K1];
    let cases = 0;
    for (const q of values) {
      for (const h of values) {
        for (const a of auths) {
          expect(actual(q, h, a), JSON.stringify([q, h, a])).toBe(expected(q, h, a));
          cases++;
        }
      }
    }
    expect(cases).toBe(448);
    expect(actual(undefined, K1, undefined)).toBe(K1);
    expect(actual(K1, K2, undefined)).toBe('mismatch');
  });
});
