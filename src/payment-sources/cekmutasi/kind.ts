// Cekmutasi (cekmutasi.co.id): reads the merchant's bank, e-wallet and QRIS histories and posts new mutations.
//
// Where this comes from:
// - Seen, in the Cekmutasi Laravel package (its catchIPN): the header `API-SIGNATURE` carries the merchant's
//   API signature (a shared secret set at Cekmutasi) itself, not a digest of the body; the package compares
//   it with hash_equals. Here it is compared in constant time as SHA-256 digests of equal length.
// - Seen (the package's callback example): the body is `{"action": "payment_report", "content":
//   {"service_name", "service_code" (the bank or wallet), "account_number", "account_name", "data":
//   [{"id", "unix_timestamp" (seconds), "type" ("credit" or "debit"), "amount" (a decimal string,
//   "125021.00"), "description", "balance"}]}}`. Each credit is a payment whose id is the entry's `id`.
// - Inferred: another `action` is not a payment report; it is answered 200 and records nothing. Whether
//   `unix_timestamp` is sent as a number or a string is not confirmed: both are read. What answer Cekmutasi
//   expects and whether it retries are not documented where looked (a 2xx is assumed enough).
// - The secret travels in every post, so the URL must be HTTPS; it has no timestamp, so a captured post
//   can be replayed, and only the per-mutation deduplication makes a replay harmless.
import { AppError } from '../../domain/errors.js';
import { header, isObject, type Mutation, mutationKind, shortText } from '../bank-mutations.js';
import { secretMatches } from '../shared-secret.js';

function unixSeconds(value: unknown): number | null {
  const text = typeof value === 'number' ? String(value) : value;
  return typeof text === 'string' && /^[0-9]{9,11}$/.test(text.trim()) ? Number(text.trim()) * 1000 : null;
}

function cekmutasiMutations(body: unknown): Mutation[] {
  if (!isObject(body) || typeof body.action !== 'string')
    throw new AppError('invalid_body', 'the body must be an object with an action');
  if (body.action !== 'payment_report') return [];
  const content = body.content;
  if (!isObject(content) || !Array.isArray(content.data))
    throw new AppError('invalid_body', 'a payment_report must have content.data, an array');
  const account = { service_code: content.service_code, account_number: content.account_number };
  return content.data.map((item, i) => {
    if (!isObject(item)) throw new AppError('invalid_body', `mutation ${i} must be an object`);
    return {
      id: item.id,
      credit: item.type === 'credit',
      amount: item.amount,
      paidAt: unixSeconds(item.unix_timestamp),
      issuer: shortText(content.service_code),
      raw: { ...account, mutation: item },
    };
  });
}

export const cekmutasiKind = mutationKind({
  type: 'cekmutasi',
  label: { en: 'Cekmutasi', id: 'Cekmutasi' },
  cliName: 'cekmutasi',
  verify(post, secret) {
    const given = header(post, 'api-signature');
    if (given === '') return 'API-SIGNATURE is required: the API signature set at Cekmutasi';
    return secretMatches(secret, given) ? null : 'API-SIGNATURE does not match';
  },
  mutations: cekmutasiMutations,
  setup: 'paste the URL as the callback URL at Cekmutasi; its API signature is the secret',
});
