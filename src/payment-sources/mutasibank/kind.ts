// Mutasibank (mutasibank.co.id): reads the merchant's bank account histories and posts new mutations.
//
// Where this comes from:
// - Seen, in Mutasibank's sample integration (its Node.js, PHP and Python webhook handlers): the header
//   `X-Mutasibank-Signature` is the hex HMAC-SHA256 of the raw body under the webhook secret from the
//   dashboard; `X-Mutasibank-Timestamp` is unix seconds, refused when more than 5 minutes (300 s) from the
//   clock; `X-Mutasibank-Webhook-Id` names the delivery (logged only). The body is `{api_key, account_id,
//   module (the bank: bca, bri, ...), account_name, account_number, balance, data_mutasi: [{id,
//   transaction_date (WIB, "2018-12-27 05:03:02"), description, type ("CR" credit or "DB" debit), amount,
//   balance}]}`. Each credit is a payment whose id is the mutation's `id`. The sample answers 200
//   `{"success": true, ...}`.
// - An older form carried only `api_key` in the body to authenticate; it is not accepted here (the API
//   token is not a signing secret, and it is not stored with payments).
// - Not confirmed: the timestamp is not covered by the signature in the sample, so it only limits how late
//   a post is accepted; whether Mutasibank retries a failed post is not documented where looked.
import { AppError } from '../../domain/errors.js';
import { parseWibDateTime } from '../../domain/wib.js';
import { header, isObject, type Mutation, mutationKind, shortText } from '../bank-mutations.js';
import { hmacMatches } from '../shared-secret.js';

const TIMESTAMP_WINDOW_MS = 5 * 60 * 1000;

function mutasibankMutations(body: unknown): Mutation[] {
  if (!isObject(body) || !Array.isArray(body.data_mutasi))
    throw new AppError('invalid_body', 'the body must be an object with a data_mutasi array');
  const account = { account_id: body.account_id, account_number: body.account_number, module: body.module };
  return body.data_mutasi.map((item, i) => {
    if (!isObject(item)) throw new AppError('invalid_body', `mutation ${i} must be an object`);
    return {
      id: item.id,
      credit: item.type === 'CR',
      amount: item.amount,
      paidAt: parseWibDateTime(item.transaction_date),
      issuer: shortText(body.module),
      // The mutation and its account; never the body's api_key.
      raw: { ...account, mutation: item },
    };
  });
}

export const mutasibankKind = mutationKind({
  type: 'mutasibank',
  label: { en: 'Mutasibank', id: 'Mutasibank' },
  cliName: 'mutasibank',
  verify(post, secret, now) {
    const signature = header(post, 'x-mutasibank-signature');
    const timestamp = header(post, 'x-mutasibank-timestamp');
    if (signature === '' || timestamp === '') return 'X-Mutasibank-Signature and X-Mutasibank-Timestamp are required';
    // Compared whatever the timestamp says, so the time taken does not tell which part was wrong.
    const matched = hmacMatches(secret, post.body, signature);
    if (!/^[0-9]{1,12}$/.test(timestamp) || Math.abs(now - Number(timestamp) * 1000) > TIMESTAMP_WINDOW_MS) {
      return 'X-Mutasibank-Timestamp is more than 5 minutes away from the server clock';
    }
    if (!matched) return 'the signature does not match the body';
    post.log.info(
      { source: post.source.id, webhook_id: header(post, 'x-mutasibank-webhook-id').slice(0, 64) },
      'mutasibank: post verified',
    );
    return null;
  },
  mutations: mutasibankMutations,
  setup: 'paste the URL as the webhook URL at Mutasibank, with the same webhook secret',
});
