// Moota (moota.co): reads the merchant's bank and QRIS account histories and posts new mutations.
//
// Where this comes from:
// - Seen, in Moota's official WordPress plugin: the header `Signature` is the hex HMAC-SHA256 of the raw
//   body under the secret the merchant sets on Moota's webhook page; the body is a JSON array of mutations,
//   each with `mutation_id` (Moota's id of the mutation: our sourcePaymentId), `amount` (rupiah),
//   `type` (`CR` credit, money in; `DB` debit, money out), `description` (the bank's text), `date`
//   (WIB wall-clock time without a zone, "2026-11-28 14:05:00"), `bank_type` (the bank or `qris`),
//   `account_number`, `balance` and a nested `bank` object (Moota's record of the account). The plugin
//   skips the check outside production and Moota's official PHP SDK compares the secret itself with the
//   hash (so it never verifies anything): here the signature is always checked, as the HMAC of the body.
// - Inferred: community integrations read `X-Moota-Signature`, so that header is accepted too (either
//   matching is enough). Whether `amount` can be a decimal string is not confirmed: both forms are read.
// - Not confirmed: what answer Moota expects (a 2xx is assumed enough) and whether and how it retries.
//   Moota publishes the addresses its webhooks come from; the signature makes an address check unneeded.
import { header, isObject, type Mutation, mutationKind, shortText } from '../bank-mutations.js';
import { hmacMatches } from '../shared-secret.js';
import { AppError } from '../../domain/errors.js';
import { parseWibDateTime } from '../../domain/wib.js';

function mootaMutations(body: unknown): Mutation[] {
  if (!Array.isArray(body)) throw new AppError('invalid_body', 'the body must be a JSON array of mutations');
  return body.map((item, i) => {
    if (!isObject(item)) throw new AppError('invalid_body', `mutation ${i} must be an object`);
    // The nested `bank` object is Moota's record of the account, not part of the payment.
    const { bank: _bank, ...raw } = item;
    return {
      id: item.mutation_id,
      credit: item.type === 'CR',
      amount: item.amount,
      paidAt: parseWibDateTime(item.date),
      issuer: shortText(item.bank_type),
      raw,
    };
  });
}

export const mootaKind = mutationKind({
  type: 'moota',
  label: { en: 'Moota', id: 'Moota' },
  cliName: 'moota',
  verify(post, secret) {
    const signatures = [header(post, 'signature'), header(post, 'x-moota-signature')].filter((s) => s !== '');
    if (signatures.length === 0)
      return 'Signature is required: the hex HMAC-SHA256 of the body with the secret set at Moota';
    // Each present header is compared (in constant time); one matching is enough.
    let matched = false;
    for (const signature of signatures) matched = hmacMatches(secret, post.body, signature) || matched;
    return matched ? null : 'the signature does not match the body';
  },
  mutations: mootaMutations,
  setup: 'paste the URL as the webhook URL at Moota, with the same secret',
});
