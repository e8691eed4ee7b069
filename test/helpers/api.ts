// The public API as the tests call it (issue 24, item 10): its paths once, and one way to create a
// transaction through it, so a test file neither re-declares the paths nor carries its own create().
import type { FastifyInstance } from 'fastify';

/** The API's base path; every path is also served under `/api${path}` (clients that join /api twice). */
export const API_BASE = '/api/payment-gateway';
export const CQRIS = `${API_BASE}/cqris`;
export const CSTATUS = `${API_BASE}/cstatus`;
export const CANCEL = `${API_BASE}/cancel`;
export const SIMULATE = `${API_BASE}/simulate`;
export const QR = `${API_BASE}/qr`;

/**
 * Distinct amounts, `start + 1000`, `start + 2000`, ...: they keep the unique-code ranges of unrelated
 * tests in one file apart.
 */
export function amountsFrom(start: number): () => string {
  let n = 0;
  return () => String(start + ++n * 1000);
}

const defaultAmounts = amountsFrom(10_000);

/**
 * Creates a transaction with GET cqris (in-process) and returns its `data`; throws with the body when it is
 * not a 200. The amount is the next of `amounts` unless `params` names one.
 */
export async function create<T>(
  app: FastifyInstance,
  key: string,
  params: Record<string, string> = {},
  amounts: () => string = defaultAmounts,
): Promise<T> {
  const query = new URLSearchParams({ amount: amounts(), ...params });
  const res = await app.inject({ url: `${CQRIS}?${query}`, headers: { 'x-api-key': key } });
  if (res.statusCode !== 200) throw new Error(`create failed: ${res.body}`);
  return res.json().data as T;
}
