// A storm of payment reports ends as the same reports one at a time do: the guard for group commit of
// payment reports (reports arriving together stored, matched and settled in shared database
// transactions, a bank-mutation post's mutations through the same batched path). Written against the
// public HTTP behaviour and the stored rows only, so it holds before and after that change.
//
// Two worlds built alike, each a real gateway process on a fresh database of this run's kind
// (startSeededGateway): a merchant with a signed-webhook source and a Moota source, and 250 open
// transactions created through the API. The same fixed plan of posts then goes to each: 500 signed
// webhook reports (about half paying a transaction's exact total, some transactions paid by two or three
// report ids, ~a tenth exact repeats of an earlier report, the rest for amounts nobody holds, many
// sharing an amount) and three Moota posts of many mutations (one a retry of another). World A gets
// them one at a time, world B all at once over loopback HTTP. Then both worlds' rows and answers are
// compared; each comparison says below why it cannot depend on which of two racing reports came first.
//
// A gateway process rather than an app in this process: the storm's client and the gateway then run on
// two threads, so the posts arrive together as a real sender's would (measured once: about 50 reports
// inside recordPayment at once in world B on SQLite, under 30 with the gateway in the test's process,
// where sending takes the thread receiving needs). Reports race for real: on PostgreSQL some lose the
// conditional update of their transaction to another report, a path record-payment.ts takes only then.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../../src/payment-sources/webhook/signature.js';
import { onPostgres } from '../../helpers/context.js';
import { cli, createLive, wib } from '../../helpers/payment-sources.js';
import { startSeededGateway, type SeededGateway } from '../../helpers/seeded-gateway.js';

/** The plan's seed: change it and the plan changes, never from one run to the next. */
const SEED = 0x5_70_4e;
const TRANSACTIONS = 250;
const WEBHOOK_POSTS = 500;
const REPEATS = 50;
const MOOTA_SECRET = 'storm-moota-secret-0123456789';

// The storm must reach the matcher whole: shedding is tested elsewhere (anonymous-load.test.ts), and a
// shed report stores nothing, so its retry would only blur what is compared. 500 source posts from one
// address at once are past both anonymous limits, so they are off here; a PostgreSQL connection waited
// for behind 500 reports on a loaded machine must not turn into a 503 either (as in refunds.test.ts).
const ENV = {
  OVERLOAD_MAX_ANONYMOUS_IN_FLIGHT: '0',
  OVERLOAD_MAX_ANONYMOUS_PER_ADDRESS: '0',
  DATABASE_CONNECT_TIMEOUT_MS: '120000',
};

// --- The plan: who pays what, fixed by SEED ---------------------------------------------------------

/** mulberry32: a small seeded generator, so the plan is the same on every run and every machine. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** A report pays transaction `tx` (by index: each world has its own ids and totals) or sends `amount`. */
type Target = { tx: number } | { amount: number };
type SourceName = 'webhook' | 'moota';

interface Report {
  /** `<source>:<id>`: the payment's identity, the same in both worlds. */
  key: string;
  id: string;
  target: Target;
}
interface Mutation extends Report {
  credit: boolean;
}
type Post = { kind: 'webhook'; report: Report } | { kind: 'moota'; name: string; mutations: Mutation[] };

/**
 * What each transaction gets, by role. `webhook`: distinct webhook report ids paying it; `p1`, `p2`: Moota
 * mutations paying it in the first and second post. Every report of one transaction is of its exact total,
 * so after the first of them binds it the others are double payments (same source, or more reports
 * from one source than the others) or corroborations (another source's view of a payment already counted,
 * record-payment.ts's isCorroboration). `racy`: more than one report id, in posts that can run at once,
 * pay it, so which of them is the payer depends on timing in world B.
 */
const ROLES = [
  { role: 'single', count: 150, webhook: 1, p1: 0, p2: 0, doubles: 0, corroborations: 0, racy: false },
  { role: 'double', count: 30, webhook: 2, p1: 0, p2: 0, doubles: 1, corroborations: 0, racy: true },
  { role: 'triple', count: 5, webhook: 3, p1: 0, p2: 0, doubles: 2, corroborations: 0, racy: true },
  // One webhook report and one mutation: the later of the two is the other's corroboration, either way
  // (its source has no report of the transaction yet, the other source has one).
  { role: 'cross', count: 8, webhook: 1, p1: 1, p2: 0, doubles: 0, corroborations: 1, racy: true },
  // Two and two: isCorroboration counts each source's reports of the transaction, and each of the six
  // orders of two webhook reports and two mutations ends in one payment, one double payment and two
  // corroborations (worked through by hand); only which report is which varies.
  { role: 'cross-double', count: 2, webhook: 2, p1: 2, p2: 0, doubles: 1, corroborations: 2, racy: true },
  { role: 'mutation', count: 20, webhook: 0, p1: 1, p2: 0, doubles: 0, corroborations: 0, racy: false },
  // Two mutations of one post: not racy, see the test of the payer below.
  { role: 'mutation-double', count: 3, webhook: 0, p1: 2, p2: 0, doubles: 1, corroborations: 0, racy: false },
  { role: 'mutation-across-posts', count: 2, webhook: 0, p1: 1, p2: 1, doubles: 1, corroborations: 0, racy: true },
  { role: 'pending', count: 30, webhook: 0, p1: 0, p2: 0, doubles: 0, corroborations: 0, racy: false },
] as const;
type Role = (typeof ROLES)[number];

interface Plan {
  posts: Post[];
  roleOf: Role[];
  /** Per transaction index, the keys of the reports paying it (for a role of one post, in array order). */
  payersOf: string[][];
  targetOf: Map<string, Target>;
  /** How often each key is posted, webhook repeats and the Moota retry included. */
  timesPosted: Map<string, number>;
  /** The keys of the debit mutations: answered ignored, never stored. */
  debits: Set<string>;
}

function makePlan(): Plan {
  const random = generator(SEED);
  const pick = (n: number) => Math.floor(random() * n);
  const shuffle = <T>(list: T[]): T[] => {
    for (let i = list.length - 1; i > 0; i--) {
      const j = pick(i + 1);
      [list[i], list[j]] = [list[j]!, list[i]!];
    }
    return list;
  };
  // Amounts below every total (the transactions' are 100,000 and up): held by no transaction at any time,
  // so a report of one is unmatched whenever it comes. 40 of them for ~220 reports: many share an amount.
  const strayAmounts = Array.from({ length: 40 }, (_, k) => 50_000 + 37 * (k + 1));
  const stray = (): Target => ({ amount: strayAmounts[pick(strayAmounts.length)]! });

  const order = shuffle(Array.from({ length: TRANSACTIONS }, (_, i) => i));
  const roleOf: Role[] = [];
  let next = 0;
  for (const role of ROLES) for (let n = 0; n < role.count; n++) roleOf[order[next++]!] = role;
  if (next !== TRANSACTIONS) throw new Error(`the roles cover ${next} transactions, not ${TRANSACTIONS}`);

  let webhookSeq = 0;
  let mutationSeq = 0;
  const webhookReport = (target: Target): Report => {
    const id = `wh-${String(++webhookSeq).padStart(4, '0')}`;
    return { key: `webhook:${id}`, id, target };
  };
  const mutation = (target: Target, credit = true): Mutation => {
    const id = `mt-${String(++mutationSeq).padStart(4, '0')}`;
    return { key: `moota:${id}`, id, target, credit };
  };
  const payersOf: string[][] = Array.from({ length: TRANSACTIONS }, () => []);
  const distinct: Report[] = [];
  const p1: Mutation[] = [];
  const p2: Mutation[] = [];
  for (let tx = 0; tx < TRANSACTIONS; tx++) {
    const role = roleOf[tx]!;
    for (let n = 0; n < role.webhook; n++) distinct.push(webhookReport({ tx }));
    for (let n = 0; n < role.p1; n++) p1.push(mutation({ tx }));
    for (let n = 0; n < role.p2; n++) p2.push(mutation({ tx }));
  }
  const paying = distinct.length;
  while (distinct.length < WEBHOOK_POSTS - REPEATS) distinct.push(webhookReport(stray()));
  for (let n = 0; n < 5; n++) p1.push(mutation(stray()));
  p1.push(mutation({ amount: 5_000 }, false));
  for (let n = 0; n < 3; n++) p2.push(mutation(stray()));
  p2.push(mutation({ amount: 7_500 }, false));
  shuffle(p1);
  // P2 also carries one of P1's mutations again, as a service resending one it already sent: a duplicate
  // of whichever of the two posts stores it first.
  p2.push(p1.find((m) => 'tx' in m.target && roleOf[m.target.tx]!.role === 'mutation')!);
  shuffle(p2);

  // The posts in world A's order, which is also the order world B's leave in: all at once, so posts close
  // together in the list reach the gateway together. The reports of a transaction paid two or three times
  // stay next to each other, so that in world B they race for it (and on SQLite share a group commit)
  // rather than arriving a second apart; the webhook halves of the cross-source pairs go right behind the
  // Moota posts, to race their mutations. The rest is shuffled.
  const groups = new Map<string, Report[]>();
  for (const r of distinct) {
    const group = 'tx' in r.target ? `tx${r.target.tx}` : r.key;
    groups.set(group, [...(groups.get(group) ?? []), r]);
  }
  const crossSource = (r: Report) => 'tx' in r.target && roleOf[r.target.tx]!.p1 > 0;
  const webhookPost = (report: Report): Post => ({ kind: 'webhook', report });
  const posts: Post[] = shuffle([...groups.values()].filter((g) => !crossSource(g[0]!)))
    .flat()
    .map(webhookPost);
  // P1's retry right behind it, so that in world B the two record the same mutations at the same time.
  posts.splice(
    Math.floor(posts.length * 0.3),
    0,
    { kind: 'moota', name: 'P1', mutations: p1 },
    { kind: 'moota', name: 'P1 again', mutations: p1 },
    { kind: 'moota', name: 'P2', mutations: p2 },
    ...shuffle(distinct.filter(crossSource)).map(webhookPost),
  );
  // Each repeat (the same body again), alternately right behind the report it repeats (in world B, the
  // same moment) and anywhere after it. The first repeats are one of each kind, so every kind is repeated
  // whatever the seed; the rest are drawn, so some reports are posted three times.
  const firstOfRole = (role: string) => distinct.find((r) => 'tx' in r.target && roleOf[r.target.tx]!.role === role)!;
  const repeats = [...['single', 'double', 'triple', 'cross', 'cross-double'].map(firstOfRole), distinct[paying]!];
  while (repeats.length < REPEATS) repeats.push(distinct[pick(distinct.length)]!);
  for (const [n, report] of repeats.entries()) {
    const first = posts.findIndex((p) => p.kind === 'webhook' && p.report.key === report.key);
    posts.splice(first + 1 + (n % 2 === 0 ? 0 : pick(posts.length - first)), 0, webhookPost(report));
  }

  const targetOf = new Map<string, Target>();
  const timesPosted = new Map<string, number>();
  const count = (r: Report) => {
    targetOf.set(r.key, r.target);
    timesPosted.set(r.key, (timesPosted.get(r.key) ?? 0) + 1);
  };
  for (const post of posts) {
    if (post.kind === 'webhook') count(post.report);
    else for (const m of post.mutations) count(m);
  }
  for (const r of [...distinct, ...p1, ...p2]) {
    if ('tx' in r.target && !payersOf[r.target.tx]!.includes(r.key)) payersOf[r.target.tx]!.push(r.key);
  }
  const debits = new Set([...p1, ...p2].filter((m) => !m.credit).map((m) => m.key));
  return { posts, roleOf, payersOf, targetOf, timesPosted, debits };
}

const plan = makePlan();

// --- A world: a gateway, its two sources and its transactions ------------------------------------------

interface World {
  g: SeededGateway;
  base: string;
  webhook: { id: string; secret: string; url: string };
  moota: { id: string; url: string };
  trxids: string[];
  totals: number[];
  indexOf: Map<string, number>;
}

/** Every gateway started, stopped after the tests even when a world failed halfway to open. */
const gateways: SeededGateway[] = [];

async function openWorld(): Promise<World> {
  const g = await startSeededGateway(ENV);
  gateways.push(g);
  const t = { databaseUrl: g.deps.config.databaseUrl };
  const webhook = await cli(t, ['source', 'add', '--merchant', g.merchant.id, '--type', 'webhook', '--json']);
  expect(webhook.code, webhook.stderr).toBe(0);
  const mootaArgs = ['source', 'add', '--merchant', g.merchant.id, '--type', 'moota', '--secret', MOOTA_SECRET];
  const moota = await cli(t, [...mootaArgs, '--json']);
  expect(moota.code, moota.stderr).toBe(0);
  return {
    g,
    base: g.url,
    webhook: webhook.json as World['webhook'],
    moota: moota.json as World['moota'],
    trxids: [],
    totals: [],
    indexOf: new Map(),
  };
}

/**
 * Transaction i is a create of 100,000 + 1,000 i: its total (with a random unique code of at most 999)
 * is in a band of its own, so totals never collide and each world maps its totals back to indexes.
 */
async function createTransactions(world: World): Promise<void> {
  for (let from = 0; from < TRANSACTIONS; from += 25) {
    const batch = Array.from({ length: Math.min(25, TRANSACTIONS - from) }, (_, k) => from + k);
    const created = await Promise.all(batch.map((i) => createLive(world.base, world.g.liveKey, 100_000 + 1_000 * i)));
    for (const [k, tx] of created.entries()) {
      world.trxids[batch[k]!] = tx.trxid as string;
      world.totals[batch[k]!] = tx.total_amount as number;
      world.indexOf.set(tx.trxid as string, batch[k]!);
    }
  }
}

const amountIn = (world: World, target: Target) => ('tx' in target ? world.totals[target.tx]! : target.amount);

interface Answer {
  status: number;
  body: any;
}

/**
 * Every post's bytes and headers made before any is sent, so world B's posts leave together. All are
 * signed with one timestamp, so a repeat is the same bytes again, as a sender's retry is.
 */
function renderPosts(world: World, paidAt: number): Array<() => Promise<Answer>> {
  const send = async (url: string, body: string, headers: Record<string, string>): Promise<Answer> => {
    const res = await fetch(`${world.base}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    const text = await res.text();
    try {
      return { status: res.status, body: JSON.parse(text) };
    } catch {
      return { status: res.status, body: text };
    }
  };
  const unix = Math.floor(Date.now() / 1000);
  return plan.posts.map((post) => {
    if (post.kind === 'webhook') {
      const { id, target } = post.report;
      const body = JSON.stringify({ id, amount: amountIn(world, target), paid_at: new Date(paidAt).toISOString() });
      const headers = { 'x-signature': signPayload(world.webhook.secret, body, unix) };
      return () => send(world.webhook.url, body, headers);
    }
    const body = JSON.stringify(
      post.mutations.map((m) => ({
        account_number: '1234567890',
        date: wib(paidAt),
        description: 'QRIS CR',
        amount: amountIn(world, m.target),
        type: m.credit ? 'CR' : 'DB',
        balance: 0,
        mutation_id: m.id,
        bank_type: 'qris',
      })),
    );
    const headers = { Signature: createHmac('sha256', MOOTA_SECRET).update(body).digest('hex') };
    return () => send(world.moota.url, body, headers);
  });
}

// --- What a world ended with -----------------------------------------------------------------------

interface StoredPayment {
  id: string;
  key: string;
  status: string;
  reason: string | null;
  amount: number;
  paid_at: number;
  transaction_id: string | null;
  compared_transaction_id: string | null;
}

interface Outcome {
  transactions: Array<{
    id: string;
    status: string;
    amount_paid: number;
    underpaid: number;
    overpaid: number;
    paid_at: number | null;
    paid_late: number;
    payment_id: string | null;
  }>;
  payments: StoredPayment[];
  /** One row per key, unless the gateway broke the unique key (the test says so). */
  byKey: Map<string, StoredPayment>;
  events: Array<{ type: string; transaction_id: string | null; payment_id: string | null }>;
}

async function readOutcome(world: World): Promise<Outcome> {
  const db = world.g.deps.db;
  const merchant = world.g.merchant.id;
  const transactions = await db
    .selectFrom('transactions')
    .select(['id', 'status', 'amount_paid', 'underpaid', 'overpaid', 'paid_at', 'paid_late', 'payment_id'])
    .where('merchant_id', '=', merchant)
    .execute();
  const rows = await db.selectFrom('payments').selectAll().where('merchant_id', '=', merchant).execute();
  const sourceName: Record<string, SourceName> = { [world.webhook.id]: 'webhook', [world.moota.id]: 'moota' };
  const payments = rows.map((p) => ({
    id: p.id,
    key: `${sourceName[p.source] ?? p.source}:${p.source_payment_id}`,
    status: p.status,
    reason: p.reason,
    amount: Number(p.amount),
    paid_at: Number(p.paid_at),
    transaction_id: p.transaction_id,
    compared_transaction_id: p.compared_transaction_id,
  }));
  const events = await db
    .selectFrom('events')
    .select(['type', 'transaction_id', 'payment_id'])
    .where('merchant_id', '=', merchant)
    .execute();
  return {
    transactions: transactions.map((r) => ({
      id: r.id,
      status: r.status,
      amount_paid: Number(r.amount_paid),
      underpaid: Number(r.underpaid),
      overpaid: Number(r.overpaid),
      paid_at: r.paid_at === null ? null : Number(r.paid_at),
      paid_late: Number(r.paid_late),
      payment_id: r.payment_id,
    })),
    payments,
    byKey: new Map(payments.map((p) => [p.key, p])),
    events,
  };
}

const CORROBORATION = 'reported_by_another_source';

/** One answer about one key: a webhook post's data, or one mutation of a Moota post's. */
interface Observation {
  key: string;
  post: number;
  source: SourceName;
  data: { status: string; payment_id?: string; trxid?: string | null; reason?: string | null; id?: string };
}

function observations(answers: Answer[]): Observation[] {
  const seen: Observation[] = [];
  for (const [i, post] of plan.posts.entries()) {
    const body = answers[i]!.body;
    if (post.kind === 'webhook')
      seen.push({ key: post.report.key, post: i, source: 'webhook', data: body?.data ?? {} });
    else
      for (const [k, m] of post.mutations.entries())
        seen.push({ key: m.key, post: i, source: 'moota', data: body?.data?.[k] ?? {} });
  }
  return seen;
}

/**
 * The same world written in world-independent terms: transactions by index, payments by key, amounts of a
 * transaction's total as `tx<i>`, times relative to the storm's paid_at. Built only from what every order
 * of the reports ends with (see each field); `racy` parts are counted, never named.
 */
function digest(world: World, outcome: Outcome, answers: Answer[], paidAt: number) {
  const index = (trxid: string | null) => (trxid === null ? null : (world.indexOf.get(trxid) ?? `unknown ${trxid}`));
  const amount = (n: number) => {
    const tx = world.totals.indexOf(n);
    return tx >= 0 ? `tx${tx}` : n;
  };
  const racyKey = (key: string) => {
    const target = plan.targetOf.get(key);
    return target !== undefined && 'tx' in target && plan.roleOf[target.tx]!.racy;
  };
  const byId = new Map(outcome.payments.map((p) => [p.id, p]));

  // Per transaction: its state and how many payments are bound to it in each way. A transaction's total
  // is paid by the first of its reports whatever the order, the rest are doubles or corroborations in
  // counts fixed by the plan (isCorroboration), and every report of a transaction carries the same amount
  // and paid_at, so status, amount_paid and paid_at do not depend on which report won.
  const transactions = plan.roleOf.map((role, i) => {
    const row = outcome.transactions.find((r) => r.id === world.trxids[i])!;
    const payer = row.payment_id === null ? null : (byId.get(row.payment_id) ?? null);
    const bound = outcome.payments.filter((p) => p.transaction_id === row.id || p.compared_transaction_id === row.id);
    return {
      index: i,
      role: role.role,
      status: row.status,
      amount_paid: row.amount_paid,
      underpaid: row.underpaid,
      overpaid: row.overpaid,
      paid_at: row.paid_at === null ? null : row.paid_at - paidAt,
      paid_late: row.paid_late,
      // Which report pays it: for a racy role the winner of a race, so only that it is one of its reports.
      payer: payer === null ? null : role.racy ? plan.payersOf[i]!.includes(payer.key) : payer.key,
      payers: bound.filter((p) => p.status === 'matched' && p.reason === null).length,
      doubles: bound.filter((p) => p.status === 'unmatched' && p.reason === 'transaction_already_paid').length,
      corroborations: bound.filter((p) => p.status === 'matched' && p.reason === CORROBORATION).length,
      other: bound.filter(
        (p) => !(p.reason === null || p.reason === 'transaction_already_paid' || p.reason === CORROBORATION),
      ).length,
      paidEvents: outcome.events.filter((e) => e.type === 'transaction.paid' && e.transaction_id === row.id).length,
    };
  });

  // Per key, the stored row. A stray amount is held by no transaction, a single payer's report is the only
  // one of its total (its repeats are duplicates of it, not payers), and of two mutations of one post the
  // first is stored and settled first (see the payer test): their rows are the same in any order. A racy
  // key's row pays, doubles or corroborates its transaction depending on the race, so only its transaction
  // and amount are kept; the counts above say how many of each there are.
  const payments = Object.fromEntries(
    [...outcome.byKey.values()]
      .sort((a, b) => a.key.localeCompare(b.key))
      .map((p) => {
        const common = { amount: amount(p.amount), paid_at: p.paid_at - paidAt };
        if (racyKey(p.key)) return [p.key, { ...common, about: index(p.transaction_id ?? p.compared_transaction_id) }];
        return [
          p.key,
          {
            ...common,
            status: p.status,
            reason: p.reason,
            transaction: index(p.transaction_id),
            compared: index(p.compared_transaction_id),
          },
        ];
      }),
  );

  // Totals by status and reason: each report is stored once, and the per-transaction counts fix how many
  // of a racy transaction's reports end each way, so these are order-free sums.
  const statuses: Record<string, number> = {};
  for (const p of outcome.payments) {
    const name = `${p.status}/${p.reason ?? '-'}`;
    statuses[name] = (statuses[name] ?? 0) + 1;
  }

  // Per key, the answers' statuses sorted: the first post of a key to be stored gets the outcome its row
  // holds and every later one `duplicate`; which copy is first is racy, the multiset is not. Racy keys'
  // outcomes vary with the race, so for them only how many answers there were.
  const answered: Record<string, string[]> = {};
  for (const o of observations(answers)) {
    answered[o.key] = [...(answered[o.key] ?? []), racyKey(o.key) ? 'answered' : o.data.status];
  }
  for (const list of Object.values(answered)) list.sort();

  const unmatchedEvents = outcome.events.filter((e) => e.type === 'payment.unmatched').length;
  return { transactions, payments, statuses, answered, unmatchedEvents };
}

// --- The storm ------------------------------------------------------------------------------------------

let a: World;
let b: World;
let paidAt: number;
const answers: { a: Answer[]; b: Answer[] } = { a: [], b: [] };
const outcomes: { a?: Outcome; b?: Outcome } = {};
const worlds = () =>
  [
    ['one at a time', a, answers.a, outcomes.a!],
    ['all at once', b, answers.b, outcomes.b!],
  ] as const;

beforeAll(
  async () => {
    // Both settled before going on, so a failure cannot leave the other starting unseen by afterAll.
    const opened = await Promise.allSettled([openWorld(), openWorld()]);
    for (const o of opened) if (o.status === 'rejected') throw o.reason;
    [a, b] = opened.map((o) => (o as PromiseFulfilledResult<World>).value) as [World, World];
    await Promise.all([createTransactions(a), createTransactions(b)]);
    paidAt = Math.floor(Date.now() / 1000) * 1000;

    const postsA = renderPosts(a, paidAt);
    let started = performance.now();
    for (const send of postsA) answers.a.push(await send());
    const sequential = performance.now() - started;
    const postsB = renderPosts(b, paidAt);
    started = performance.now();
    answers.b = await Promise.all(postsB.map((send) => send()));
    const concurrent = performance.now() - started;
    const database = onPostgres ? 'PostgreSQL' : 'SQLite';
    console.info(
      `${database}: ${plan.posts.length} posts one at a time ${Math.round(sequential)} ms, ` +
        `all at once ${Math.round(concurrent)} ms`,
    );
    outcomes.a = await readOutcome(a);
    outcomes.b = await readOutcome(b);
  },
  // Two gateways, 500 creates and 1,006 posts: about 10 s on an idle 2-core machine, more on a busy one
  // (and the first start after an edit of src/ builds dist/, about 25 s).
  180_000,
);
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
});

describe('500 payment reports at once end as they do one at a time', () => {
  it('the plan is what the test says it is', () => {
    const webhookPosts = plan.posts.filter((p) => p.kind === 'webhook');
    expect(webhookPosts).toHaveLength(WEBHOOK_POSTS);
    const keys = new Set(webhookPosts.map((p) => (p.kind === 'webhook' ? p.report.key : '')));
    expect(WEBHOOK_POSTS - keys.size).toBe(REPEATS);
    const paying = webhookPosts.filter((p) => p.kind === 'webhook' && 'tx' in p.report.target).length;
    // About half pay a transaction's total.
    expect(paying).toBeGreaterThan(220);
    expect(paying).toBeLessThan(280);
    expect(plan.posts.filter((p) => p.kind === 'moota').map((p) => (p.kind === 'moota' ? p.name : ''))).toEqual([
      'P1',
      'P1 again',
      'P2',
    ]);
  });

  it('every post is answered 200, and each answer says what was stored', () => {
    for (const [name, , given, outcome] of worlds()) {
      const problems: string[] = [];
      for (const [i, answer] of given.entries())
        if (answer.status !== 200) problems.push(`post ${i}: ${answer.status} ${JSON.stringify(answer.body)}`);
      const payers = new Map(outcome.transactions.map((r) => [r.payment_id, r.id]));
      const duplicates = new Map<string, number>();
      for (const o of observations(given)) {
        const where = `${name}, post ${o.post}, ${o.key}: ${JSON.stringify(o.data)}`;
        const stored = outcome.byKey.get(o.key);
        if (plan.debits.has(o.key)) {
          // A debit is no payment: answered ignored, nothing stored.
          if (o.data.status !== 'ignored' || o.data.reason !== 'not_a_credit' || stored)
            problems.push(`${where}: a debit must be ignored and not stored`);
          continue;
        }
        if (!stored) {
          problems.push(`${where}: nothing stored`);
          continue;
        }
        // Every answer about a key names the one payment stored for it.
        if (o.data.payment_id !== stored.id) problems.push(`${where}: names another payment than ${stored.id}`);
        const trxid = o.data.trxid ?? null;
        const reason = o.data.reason ?? null;
        switch (o.data.status) {
          case 'matched':
            // Bound to the transaction it names, which names it as its payer.
            if (stored.status !== 'matched' || stored.reason !== null || stored.transaction_id !== trxid)
              problems.push(`${where}: stored ${JSON.stringify(stored)}`);
            if (trxid === null || payers.get(stored.id) !== trxid) problems.push(`${where}: not the payer of ${trxid}`);
            break;
          case 'unmatched':
            // Kept unmatched for the reason given; a mutation's answer names the transaction compared with.
            if (stored.status !== 'unmatched' || stored.reason !== reason || stored.transaction_id !== null)
              problems.push(`${where}: stored ${JSON.stringify(stored)}`);
            if (trxid !== (o.source === 'moota' ? stored.compared_transaction_id : null))
              problems.push(`${where}: names ${trxid}, stored ${JSON.stringify(stored)}`);
            break;
          case 'duplicate':
            // The stored payment as it now is: a repeat, or a corroboration bound to the paid transaction.
            if (stored.transaction_id !== trxid || stored.reason !== reason)
              problems.push(`${where}: stored ${JSON.stringify(stored)}`);
            duplicates.set(o.key, (duplicates.get(o.key) ?? 0) + 1);
            break;
          default:
            problems.push(`${where}: no outcome`);
        }
      }
      // Exactly one post of a key is answered with its outcome and the others `duplicate`; a corroboration's
      // outcome is itself answered `duplicate`, so all its posts are.
      for (const [key, times] of plan.timesPosted) {
        const stored = outcome.byKey.get(key);
        if (!stored) continue;
        const expected = stored.reason === CORROBORATION ? times : times - 1;
        if ((duplicates.get(key) ?? 0) !== expected)
          problems.push(`${name}, ${key}: ${duplicates.get(key) ?? 0} duplicate answers of ${times}, not ${expected}`);
      }
      expect(problems).toEqual([]);
    }
  });

  it('stores each report once, binds each transaction to at most one payer and each payer to one transaction', () => {
    for (const [name, , , outcome] of worlds()) {
      const problems: string[] = [];
      const rows = new Map<string, number>();
      for (const p of outcome.payments) rows.set(p.key, (rows.get(p.key) ?? 0) + 1);
      for (const [key, n] of rows) if (n !== 1) problems.push(`${name}: ${n} rows for ${key}`);
      for (const key of plan.timesPosted.keys()) {
        if (!plan.debits.has(key) && !rows.has(key)) problems.push(`${name}: no row for ${key}`);
      }
      const byId = new Map(outcome.payments.map((p) => [p.id, p]));
      const payerOf = new Map<string, string>();
      for (const tx of outcome.transactions) {
        const payers = outcome.payments.filter(
          (p) => p.transaction_id === tx.id && p.status === 'matched' && p.reason === null,
        );
        if (tx.status === 'paid') {
          if (payers.length !== 1 || payers[0]!.id !== tx.payment_id)
            problems.push(`${name}: ${tx.id} paid by ${tx.payment_id}, payers bound ${payers.map((p) => p.id)}`);
        } else if (payers.length !== 0 || tx.payment_id !== null) problems.push(`${name}: ${tx.id} is bound unpaid`);
        if (tx.payment_id !== null) {
          if (payerOf.has(tx.payment_id)) problems.push(`${name}: ${tx.payment_id} pays two transactions`);
          payerOf.set(tx.payment_id, tx.id);
          if (byId.get(tx.payment_id)?.transaction_id !== tx.id)
            problems.push(`${name}: ${tx.id}'s payment is bound elsewhere`);
        }
      }
      expect(problems).toEqual([]);
    }
  });

  it('world A is as planned: the transactions paid, each by one payer, with its doubles and corroborations', () => {
    // So that the comparisons below compare a world that worked, not two equally broken ones.
    const d = digest(a, outcomes.a!, answers.a, paidAt);
    for (const tx of d.transactions) {
      const role = plan.roleOf[tx.index]!;
      const paid = role.role !== 'pending';
      expect(tx, `transaction ${tx.index}`).toMatchObject({
        status: paid ? 'paid' : 'pending',
        amount_paid: paid ? a.totals[tx.index] : 0,
        underpaid: 0,
        overpaid: 0,
        paid_at: paid ? 0 : null,
        paid_late: 0,
        payer: !paid ? null : role.racy ? true : plan.payersOf[tx.index]![0],
        payers: paid ? 1 : 0,
        doubles: role.doubles,
        corroborations: role.corroborations,
        other: 0,
        paidEvents: paid ? 1 : 0,
      });
    }
    for (const [key, target] of plan.targetOf) {
      if ('amount' in target && !plan.debits.has(key))
        expect(d.payments[key], key).toMatchObject({ status: 'unmatched', reason: 'no_matching_transaction' });
    }
    // An event for each paid transaction and each unmatched payment, none for a corroboration.
    const paid = d.transactions.filter((tx) => tx.status === 'paid').length;
    const unmatched = outcomes.a!.payments.filter((p) => p.status === 'unmatched').length;
    expect(d.unmatchedEvents).toBe(unmatched);
    expect(outcomes.a!.events).toHaveLength(paid + unmatched);
  });

  it('the same transactions are paid, each for the same amount, with the same payments bound to it', () => {
    const da = digest(a, outcomes.a!, answers.a, paidAt);
    const db = digest(b, outcomes.b!, answers.b, paidAt);
    // amount_paid is each world's own total (random unique codes): compared as "the transaction's total".
    const own = (world: World, list: typeof da.transactions) =>
      list.map((tx) => ({ ...tx, amount_paid: tx.amount_paid === world.totals[tx.index] ? 'total' : tx.amount_paid }));
    expect(own(b, db.transactions)).toEqual(own(a, da.transactions));
    expect(db.unmatchedEvents).toBe(da.unmatchedEvents);
    expect(outcomes.b!.events.length).toBe(outcomes.a!.events.length);
  });

  it('the same payments are recorded: per report the same row where no race decides it, the same totals', () => {
    const da = digest(a, outcomes.a!, answers.a, paidAt);
    const db = digest(b, outcomes.b!, answers.b, paidAt);
    expect(outcomes.b!.payments.length).toBe(outcomes.a!.payments.length);
    expect(db.payments).toEqual(da.payments);
    expect(db.statuses).toEqual(da.statuses);
    expect(db.answered).toEqual(da.answered);
  });

  it("of two mutations of one post paying one transaction, the post's first is the payment in both worlds", () => {
    // A post's mutations are its service's account history in order, recorded in that order: the first
    // credit of a total is the payment and the later one the double payment, whatever else arrives
    // meanwhile. Not racy in world B either: the post and its retry each record the pair in array order,
    // so the first mutation is stored (by one of them) before either records the second.
    for (const [name, world, , outcome] of worlds()) {
      for (const [i, role] of plan.roleOf.entries()) {
        if (role.role !== 'mutation-double') continue;
        const tx = outcome.transactions.find((r) => r.id === world.trxids[i])!;
        const payer = outcome.payments.find((p) => p.id === tx.payment_id);
        expect(payer?.key, `${name}, transaction ${i}`).toBe(plan.payersOf[i]![0]);
      }
    }
  });
});
