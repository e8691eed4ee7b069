// What the bank-mutation kinds (moota, mutasibank, cekmutasi) share. Each of those services reads the
// merchant's bank or QRIS account history and posts the new mutations to the URL the merchant pasted,
// authenticated with a secret the merchant set at the service (so `source add --secret` takes it, rather than
// the gateway making one). A kind's own file says how its service signs and what its body holds; this file
// checks signatures in constant time (shared-secret.ts), parses the body once it is authenticated, and records each credit
// mutation as its own payment (its id is the mutation's id, so a retried post is a duplicate).
import type { Actor } from '../domain/actor.js';
import { AppError } from '../domain/errors.js';
import { parseReportedAmount } from '../domain/reported-amount.js';
import type { Deps } from '../services/deps.js';
import { recordPayment } from '../services/payments/record-payment.js';
import type { SourceType } from '../storage/schema.js';
import { inboundEventsPath, insertSource, parseMode, requireMerchant } from './common.js';
import type { InboundAnswer, InboundPost, SourceKind } from './kind.js';

/** The first value of a header (Node joins or lists repeated ones), or ''. */
export function header(post: InboundPost, name: string): string {
  const value = post.headers[name.toLowerCase()];
  return (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
}

/** One mutation of a post, as the kind read it from its service's body. */
export interface Mutation {
  /** The service's id of the mutation (a string or a number): the payment's sourcePaymentId. */
  id: unknown;
  /** A credit (money in): only credits are payments. */
  credit: boolean;
  amount: unknown;
  /** When the money moved (epoch ms), null when the service's date is not readable. */
  paidAt: number | null;
  /** The bank or channel the service names (Moota's bank_type, Mutasibank's module, ...), if any. */
  issuer: string | null;
  /** What is kept with the payment for operators: the mutation, never the service's credentials. */
  raw: Record<string, unknown>;
}

export type MutationResult =
  | {
      id: string;
      status: 'matched' | 'unmatched' | 'duplicate';
      payment_id: string;
      trxid: string | null;
      reason: string | null;
    }
  | { id: string; status: 'ignored'; reason: string };

/** How a kind authenticates its service and reads its body. */
export interface MutationService<T extends SourceType> {
  type: T;
  label: { en: string; id: string };
  cliName: string;
  /** Null when the post is the service's, else why not (the 401's message). */
  verify(post: InboundPost, secret: string, now: number): string | null;
  /** The mutations of the parsed JSON body; AppError invalid_body when it is not the service's shape. */
  mutations(body: unknown): Mutation[];
  /** How to set the service up, for `source add`'s text. */
  setup: string;
}

// Mutation ids are keys and get echoed: printable ASCII, at most 128 characters.
const ID = /^[\x21-\x7e](?:[\x20-\x7e]{0,126}[\x21-\x7e])?$/;
const FUTURE_TOLERANCE_MS = 60 * 60 * 1000;

function mutationId(value: unknown): string | null {
  const text = typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? String(value) : value;
  return typeof text === 'string' && ID.test(text) ? text : null;
}

/** The parsed JSON body (refused as invalid_body when it is not JSON in UTF-8). */
export function parseJsonBody(body: Buffer): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new AppError('invalid_body', 'the body is not valid JSON');
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A short text field of a mutation (issuer and the like), or null. */
export function shortText(value: unknown, max = 64): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return text === '' || text.length > max || /[\p{Cc}\p{Cf}]/u.test(text) ? null : text;
}

async function receiveMutations<T extends SourceType>(
  service: MutationService<T>,
  deps: Deps,
  post: InboundPost,
): Promise<InboundAnswer> {
  const secret = typeof post.config.secret === 'string' ? post.config.secret : '';
  if (secret === '') throw new AppError('source_not_found', 'no such payment source');
  const now = deps.now();
  const problem = service.verify(post, secret, now);
  if (problem !== null) {
    post.log.warn({ source: post.source.id, kind: service.type }, 'mutation source: signature rejected');
    throw new AppError('invalid_signature', problem);
  }
  const mutations = service.mutations(parseJsonBody(post.body));
  // Every id is checked before anything is stored: a post with a mutation that cannot be deduplicated is
  // refused whole (400), so the service's retry is not half recorded.
  const ids = mutations.map((m, i) => {
    const id = mutationId(m.id);
    if (id === null)
      throw new AppError('invalid_body', `mutation ${i} has no usable id (1 to 128 printable ASCII characters)`);
    return id;
  });
  // Each credit is recorded as its own payment; all of them are handed over in this one turn, so they are
  // recorded together in one unit of work (record-payment.ts), in the order the service listed them.
  const results: Array<MutationResult | Promise<MutationResult>> = [];
  for (const [i, m] of mutations.entries()) {
    const id = ids[i]!;
    if (!m.credit) {
      results.push({ id, status: 'ignored', reason: 'not_a_credit' });
      continue;
    }
    const amount = parseReportedAmount(m.amount, { min: 1, max: deps.config.amountMax });
    if (!amount.ok) {
      results.push({ id, status: 'ignored', reason: amount.reason });
      continue;
    }
    if (m.paidAt === null || m.paidAt > now + FUTURE_TOLERANCE_MS) {
      results.push({ id, status: 'ignored', reason: 'invalid_date' });
      continue;
    }
    const recorded = recordPayment(deps, {
      merchantId: post.source.merchant_id,
      mode: post.config.mode === 'test' ? 'test' : 'live',
      source: post.source.id,
      sourcePaymentId: id,
      amount: amount.amount,
      paidAt: m.paidAt,
      issuer: m.issuer,
      raw: m.raw,
    });
    results.push(
      recorded.then((r) => ({
        id,
        status: r.outcome,
        payment_id: r.payment.id,
        trxid: r.payment.transaction_id ?? r.transaction?.id ?? null,
        reason: r.reason,
      })),
    );
  }
  // Every recording is waited for before a failure is answered, so the service's retry finds what was stored.
  const settled = await Promise.allSettled(results);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  const answers = settled.map((r) => (r as PromiseFulfilledResult<MutationResult>).value);
  const ignored = answers.filter((r) => r.status === 'ignored');
  if (ignored.length > 0) post.log.info({ source: post.source.id, ignored }, 'mutation source: mutations not recorded');
  // The services only look at the status (inferred: none documents an answer body); 200 also for a post
  // whose every mutation was a duplicate or a debit, so the service does not retry it.
  return { status: 200, body: { success: true, data: answers } };
}

const SECRET = /^[\x21-\x7e]{8,256}$/;

/** Stores a bank-mutation source with the secret the merchant set at the service. */
async function addMutationSource(
  deps: Deps,
  type: SourceType,
  input: { merchantId: string; mode?: string; secret: string | undefined; actor?: Actor; name?: string | null },
): Promise<{ id: string; url: string }> {
  await requireMerchant(deps, input.merchantId);
  const mode = parseMode(input.mode);
  const secret = input.secret?.trim() ?? '';
  if (!SECRET.test(secret)) {
    throw new AppError(
      'invalid_parameter',
      'secret must be the secret set at the service: 8 to 256 printable ASCII characters, no spaces',
      {
        param: 'secret',
      },
    );
  }
  const id = await insertSource(deps, {
    merchantId: input.merchantId,
    type,
    config: { mode, secret },
    actor: input.actor,
    name: input.name,
  });
  return { id, url: inboundEventsPath(id) };
}

/** The SourceKind of a bank-mutation service: posted to, added with the secret set at the service. */
export function mutationKind<T extends SourceType>(service: MutationService<T>): SourceKind<T> {
  return {
    type: service.type,
    label: service.label,
    cliName: service.cliName,
    polled: false,
    inbound: true,
    details: (row) => ({ url: inboundEventsPath(row.id) }),
    receive: (deps, post) => receiveMutations(service, deps, post),
    cli: {
      // Shared by the three kinds: `source add` lists it once.
      options: [['--secret <secret>', 'moota, mutasibank, cekmutasi: the secret (signing key) set at the service']],
      // Exactly id and url: scripts read this object. The secret is the merchant's own, not printed back.
      add: (deps, input) =>
        addMutationSource(deps, service.type, {
          merchantId: input.merchant,
          mode: input.mode,
          secret: input.options.secret,
          actor: input.actor,
          name: input.name,
        }),
      describe: (created) =>
        [
          `created ${service.cliName} source ${String(created.id)}`,
          `  webhook URL: ${String(created.url)} (under your public base URL)`,
          `  ${service.setup}`,
        ].join('\n'),
    },
  };
}
