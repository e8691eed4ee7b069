// kill -9 during a payment storm loses no acknowledged report. Reports are recorded in batches (record-
// payment.ts) and, on SQLite, inside the group commit (unit-of-work.ts); a report may be answered only once
// the transaction holding it has committed. Here a real gateway process (startSeededGateway) on a database
// of this run's kind takes a storm of signed webhook reports from many senders at once over loopback HTTP
// and is SIGKILLed while requests are in flight; the next process on the same database must hold every
// report answered 200 before, as it was answered, and nothing half done. Each sender then posts its
// unanswered report again to the new process, as a sender retries, and the next storm begins; three times.
//
// What a kill can and cannot show: the rows of a COMMIT that ran are in the SQLite log file (in the page
// cache, if not yet on disk) or in PostgreSQL's WAL, and survive the death of the process. So this catches
// an answer given before its commit ran, not one given before the log's fsync: only a power loss loses
// what is in the page cache, and no test here can cut the power.
//
// The plan: 100 open transactions and 3,000 reports, half of a transaction's exact total (each total
// reported 15 times, its reports next to each other so they race, the transactions paid one after another
// through the plan, so first payments are still being decided when a process dies) and half of amounts no
// transaction holds. A storm takes the plan on from where the last one stopped; a kill is triggered by
// counting answers, never by a sleep, and the plan is never sent to its end.
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../../src/payment-sources/webhook/signature.js';
import { onPostgres } from '../../helpers/context.js';
import { cli, createLive, status } from '../../helpers/payment-sources.js';
import { startSeededGateway, type SeededGateway } from '../../helpers/seeded-gateway.js';
import type { GatewayProcess } from '../../helpers/processes.js';

const SEED = 0x6b_11_9;
const TRANSACTIONS = 100;
const REPORTS = 3_000;
/** Senders posting at once, each one report at a time: the gateway always has dozens of reports in hand. */
const SENDERS = 48;
/** Acknowledgements in a storm before its kill: hundreds, so that many batches were committed and answered. */
const KILL_AFTER = 500;
/**
 * Storms, each ended by a kill and followed by a new process on the same database. A kill shows an answer
 * given before its commit only if it lands between the two, that is if the gap outlasts the test's reaction
 * to the answer: with the group commit made to answer one event-loop turn before its COMMIT, one kill saw
 * it in 4 runs of 6 on a busy 2-core machine, three kills in 4 of 4. Each storm adds about 3 s.
 */
const ROUNDS = 3;

// As in payment-storm-equivalence.test.ts: a storm from one address is past the anonymous load-shedding
// limits, which are tested elsewhere (a shed report stores nothing and would only blur what is checked);
// and a PostgreSQL connection waited for on a loaded machine must not turn into a 503.
const ENV = {
  OVERLOAD_MAX_ANONYMOUS_IN_FLIGHT: '0',
  OVERLOAD_MAX_ANONYMOUS_PER_ADDRESS: '0',
  DATABASE_CONNECT_TIMEOUT_MS: '120000',
};

// --- The plan, fixed by SEED ------------------------------------------------------------------------------

/** mulberry32, as in the equivalence test: the same plan on every run. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** A report pays transaction `tx`'s total (by index) or sends an amount below every total. */
interface Report {
  id: string;
  target: { tx: number } | { amount: number };
}

function makePlan(): Report[] {
  const random = generator(SEED);
  const paying = Array.from({ length: REPORTS }, (_, k) => k < REPORTS / 2);
  for (let i = paying.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [paying[i], paying[j]] = [paying[j]!, paying[i]!];
  }
  // Totals are 100,000 and up: these 60 amounts are held by no transaction, and many reports share one.
  const stray = Array.from({ length: 60 }, (_, k) => 50_000 + 37 * (k + 1));
  let nth = 0;
  return paying.map((pays, k) => ({
    id: `storm-${String(k).padStart(4, '0')}`,
    // The j-th paying report pays transaction floor(j / 15): a transaction's reports are close together
    // in the storm and the transactions are paid in turn all through it.
    target: pays
      ? { tx: Math.floor((nth++ * TRANSACTIONS) / (REPORTS / 2)) }
      : { amount: stray[Math.floor(random() * stray.length)]! },
  }));
}

const plan = makePlan();

// --- The storm ----------------------------------------------------------------------------------------------

interface AnswerData {
  payment_id: string;
  status: string;
  trxid: string | null;
  reason: string | null;
}
/** What a sender saw of one post: an answer, or an error instead of one (the connection died). */
type Seen = { status: number; data: AnswerData | null; text: string } | { error: string };

const acknowledged = (seen: Seen | undefined): seen is { status: 200; data: AnswerData; text: string } =>
  seen !== undefined && 'status' in seen && seen.status === 200 && seen.data !== null;

/** One process's storm, its death, and the retries to the process that replaced it. */
interface Round {
  /** Per report index: what its post in this storm got. */
  storm: Map<number, Seen>;
  /** Posts sent and answers heard when the kill was sent. */
  sentAtKill: number;
  answeredAtKill: number;
  /** The report posted in the tick of the kill. */
  cutIndex: number;
  stormMs: number;
  /** The database as the next process found it. */
  afterCrash: Stored;
  /** This storm's unanswered reports, sent again to the next process, and what they got. */
  retried: Map<number, Seen>;
  afterRetry: Stored;
}

let g: SeededGateway;
let secret: string;
let sourceId: string;
const trxids: string[] = [];
const totals: number[] = [];
/** Each report's signed post, made before the storm; a retry sends the same bytes, as a sender's would. */
let posts: Array<{ body: string; signature: string }> = [];
const rounds: Round[] = [];
/** The process that replaced the last one killed: the one alive when the checks run. */
let last: GatewayProcess;

/**
 * Keep-alive connections, one per sender, as a sender's client keeps them. node:http rather than fetch: its
 * response event comes straight from the socket's read, where fetch adds several promise hops before the
 * test hears of an answer, and the kill must follow the answer it is triggered by as closely as it can.
 */
const agent = new Agent({ keepAlive: true, maxSockets: SENDERS });

/** Posts report i; `heard` is told the status as soon as the answer's head arrives, before its body is read. */
function post(base: string, i: number, heard?: (status: number) => void): Promise<Seen> {
  const { body, signature } = posts[i]!;
  return new Promise((resolve) => {
    let done = false;
    const finish = (seen: Seen) => {
      if (done) return;
      done = true;
      resolve(seen);
    };
    const request = httpRequest(
      `${base}/api/payment-sources/${sourceId}/events`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-signature': signature,
        },
        // Only a safety net: a connection of a killed process fails at once.
        timeout: 60_000,
      },
      (res) => {
        const code = res.statusCode ?? 0;
        heard?.(code);
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', (err) => finish({ error: `${err} after the head of a ${code}` }));
        res.on('end', () => {
          if (!res.complete) return finish({ error: `the body of a ${code} was cut` });
          let data: AnswerData | null = null;
          try {
            data = (JSON.parse(text) as { data?: AnswerData }).data ?? null;
          } catch {
            // not JSON: kept as text for the failure message
          }
          finish({ status: code, data, text });
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error('no answer in 60 s')));
    request.on('error', (err) => finish({ error: String(err) }));
    request.end(body);
  });
}

/** The post sent in the tick of the kill, and the counts when the kill was sent. */
interface Cut {
  index: number;
  seen: Promise<Seen>;
  sent: number;
  answered: number;
}

/**
 * SENDERS loops take the plan's reports in order from `from` until the KILL_AFTER-th 200 arrives; the
 * gateway is killed as soon as its head does, while the other senders' posts are in flight, and no sender
 * starts another post after that. Killing at once matters: an answer given before its commit is lost only
 * if the process dies between the two, so the sooner after an answer, the shorter the gap the test sees.
 * Answers that arrive after the kill still count: the gateway wrote them before it died.
 */
async function runStorm(
  gateway: GatewayProcess,
  from: number,
): Promise<Omit<Round, 'afterCrash' | 'retried' | 'afterRetry'>> {
  const storm = new Map<number, Seen>();
  const started = performance.now();
  let next = from;
  let sent = 0;
  let answered = 0;
  let acks = 0;
  let cut: Cut | null = null;
  const heard = (status: number) => {
    answered += 1;
    if (status === 200) acks += 1;
    if (acks < KILL_AFTER || cut !== null) return;
    // One more post, killed in the same tick: the request cannot be answered by a process dead before it
    // could read it, so the retry has a report stored nowhere to send whatever the timing of the others
    // (which the dead process may have answered, stored unanswered, or not stored). A storm's KILL_AFTER
    // acknowledgements come long before the plan's end, so there is one to send.
    const index = next++;
    cut = { index, seen: post(gateway.url, index), sent, answered };
    gateway.child.kill('SIGKILL');
  };
  const sender = async () => {
    while (cut === null && next < plan.length) {
      const i = next++;
      sent += 1;
      storm.set(i, await post(gateway.url, i, heard));
    }
  };
  await Promise.all(Array.from({ length: SENDERS }, sender));
  // Set in `heard`, which TypeScript does not see run: it takes `cut` for still null here.
  const killed = cut as Cut | null;
  if (killed === null) throw new Error(`the storm ended with ${acks} acknowledgements, before the kill`);
  storm.set(killed.index, await killed.seen);
  const stormMs = performance.now() - started;
  await gateway.stop('SIGKILL');
  return { storm, sentAtKill: killed.sent, answeredAtKill: killed.answered, cutIndex: killed.index, stormMs };
}

// --- What the database holds ---------------------------------------------------------------------------------

interface Payment {
  id: string;
  index: number;
  status: string;
  reason: string | null;
  transaction_id: string | null;
  compared_transaction_id: string | null;
}
interface Stored {
  payments: Payment[];
  /** By report index; the first row if the unique key were broken (the checks count rows). */
  byIndex: Map<number, Payment>;
  transactions: Map<string, { status: string; payment_id: string | null; amount_paid: number }>;
  events: Array<{ type: string; transaction_id: string | null; payment_id: string | null }>;
}

async function readStored(): Promise<Stored> {
  const db = g.deps.db;
  const rows = await db
    .selectFrom('payments')
    .select(['id', 'source', 'source_payment_id', 'status', 'reason', 'transaction_id', 'compared_transaction_id'])
    .where('merchant_id', '=', g.merchant.id)
    .execute();
  const payments = rows.map((p) => {
    if (p.source !== sourceId) throw new Error(`a payment of another source: ${JSON.stringify(p)}`);
    const { source: _, source_payment_id, ...rest } = p;
    return { ...rest, index: Number(source_payment_id.slice('storm-'.length)) };
  });
  const transactions = await db
    .selectFrom('transactions')
    .select(['id', 'status', 'payment_id', 'amount_paid'])
    .where('merchant_id', '=', g.merchant.id)
    .execute();
  const events = await db
    .selectFrom('events')
    .select(['type', 'transaction_id', 'payment_id'])
    .where('merchant_id', '=', g.merchant.id)
    .execute();
  return {
    payments,
    byIndex: new Map(payments.map((p) => [p.index, p])),
    transactions: new Map(
      transactions.map((t) => [
        t.id,
        { status: t.status, payment_id: t.payment_id, amount_paid: Number(t.amount_paid) },
      ]),
    ),
    events,
  };
}

/**
 * Whatever was stored is whole, answered or not: each report stored once; a paying report is its
 * transaction's payer or a double payment of it, a stray one unmatched; a paid transaction is paid by
 * exactly one payment, bound to it and to no other, with its transaction.paid event (the outbox row
 * written in the same transaction); an unmatched payment has its payment.unmatched event; no report that
 * was never sent is stored.
 */
function inconsistencies(stored: Stored, sent: (i: number) => boolean): string[] {
  const problems: string[] = [];
  const rows = new Map<number, number>();
  for (const p of stored.payments) rows.set(p.index, (rows.get(p.index) ?? 0) + 1);
  for (const [i, n] of rows) {
    if (n !== 1) problems.push(`report ${i}: ${n} rows`);
    if (!sent(i)) problems.push(`report ${i}: stored but never sent`);
  }
  const events = (type: string, payment: string) =>
    stored.events.filter((e) => e.type === type && e.payment_id === payment);
  const paidBy = new Map<string, string>();
  for (const p of stored.payments) {
    const target = plan[p.index]!.target;
    const where = `report ${p.index} (${p.id}) ${JSON.stringify(p)}`;
    if ('amount' in target) {
      if (p.status !== 'unmatched' || p.reason !== 'no_matching_transaction' || p.transaction_id !== null)
        problems.push(`${where}: a stray amount must be unmatched`);
    } else if (p.status === 'matched') {
      const trxid = trxids[target.tx]!;
      const tx = stored.transactions.get(trxid);
      if (p.reason !== null || p.transaction_id !== trxid) problems.push(`${where}: not bound to ${trxid}`);
      if (tx?.status !== 'paid' || tx.payment_id !== p.id || tx.amount_paid !== totals[target.tx])
        problems.push(`${where}: its transaction is ${JSON.stringify(tx)}`);
      if (paidBy.has(trxid)) problems.push(`${trxid} has two payers, ${paidBy.get(trxid)} and ${p.id}`);
      paidBy.set(trxid, p.id);
      const paid = events('transaction.paid', p.id);
      if (paid.length !== 1 || paid[0]!.transaction_id !== trxid)
        problems.push(`${where}: transaction.paid events ${JSON.stringify(paid)}`);
    } else {
      // A later report of a total already paid: a double payment, compared with that transaction.
      const trxid = trxids[target.tx]!;
      if (p.reason !== 'transaction_already_paid' || p.transaction_id !== null || p.compared_transaction_id !== trxid)
        problems.push(`${where}: must be a double payment of ${trxid}`);
      if (stored.transactions.get(trxid)?.status !== 'paid') problems.push(`${where}: ${trxid} is not paid`);
    }
    if (p.status === 'unmatched' && events('payment.unmatched', p.id).length !== 1)
      problems.push(`${where}: no payment.unmatched event`);
  }
  const payers = new Map<string, string>();
  for (const [trxid, tx] of stored.transactions) {
    if (tx.status === 'paid' && paidBy.get(trxid) !== tx.payment_id)
      problems.push(`${trxid} is paid by ${tx.payment_id}, its matched report is ${paidBy.get(trxid)}`);
    if (tx.status !== 'paid' && (tx.payment_id !== null || tx.amount_paid !== 0))
      problems.push(`${trxid} is ${JSON.stringify(tx)}`);
    if (tx.payment_id === null) continue;
    if (payers.has(tx.payment_id)) problems.push(`${tx.payment_id} pays ${payers.get(tx.payment_id)} and ${trxid}`);
    payers.set(tx.payment_id, trxid);
  }
  const paidEvents = stored.events.filter((e) => e.type === 'transaction.paid').length;
  if (paidEvents !== paidBy.size) problems.push(`${paidEvents} transaction.paid events, ${paidBy.size} payers`);
  return problems;
}

// --- The run ----------------------------------------------------------------------------------------------------

/** Every answer of a 200 given so far, storms and retries, with the report it is about. */
function acknowledgements(upTo: number, withRetries: boolean): Array<[number, AnswerData]> {
  const all: Array<[number, AnswerData]> = [];
  for (const [r, round] of rounds.entries()) {
    if (r > upTo) break;
    for (const [i, seen] of round.storm) if (acknowledged(seen)) all.push([i, seen.data]);
    if (r < upTo || withRetries)
      for (const [i, seen] of round.retried) if (acknowledged(seen)) all.push([i, seen.data]);
  }
  return all;
}

/** The indexes posted in the storms up to round `upTo`. */
const sentBy = (upTo: number) => (i: number) => rounds.slice(0, upTo + 1).some((round) => round.storm.has(i));

/** Whether the database holds report i as answer `a` said: its payment, status, reason and transaction. */
function storedAsAnswered(stored: Stored, i: number, a: AnswerData): string[] {
  const where = `report ${i}, answered ${JSON.stringify(a)}`;
  const rows = stored.payments.filter((p) => p.index === i);
  if (rows.length !== 1) return [`${where}: ${rows.length} rows`];
  const p = rows[0]!;
  const problems: string[] = [];
  // A duplicate's answer is the stored payment as it was then: status and reason of the first recording.
  if (p.id !== a.payment_id || p.reason !== a.reason || (a.status !== 'duplicate' && p.status !== a.status))
    problems.push(`${where}: stored ${JSON.stringify(p)}`);
  if (p.transaction_id !== a.trxid) problems.push(`${where}: bound to ${p.transaction_id}`);
  // Answered as the payer: the transaction is paid by exactly this payment, with its event.
  if (a.status === 'matched') {
    const tx = stored.transactions.get(a.trxid ?? '');
    if (tx?.status !== 'paid' || tx.payment_id !== a.payment_id)
      problems.push(`${where}: the transaction is ${JSON.stringify(tx)}`);
    const events = stored.events.filter((e) => e.type === 'transaction.paid' && e.transaction_id === a.trxid);
    if (events.length !== 1 || events[0]!.payment_id !== a.payment_id)
      problems.push(`${where}: transaction.paid events ${JSON.stringify(events)}`);
  }
  return problems;
}

beforeAll(
  async () => {
    g = await startSeededGateway(ENV);
    const added = await cli({ databaseUrl: g.deps.config.databaseUrl }, [
      'source',
      'add',
      '--merchant',
      g.merchant.id,
      '--type',
      'webhook',
      '--json',
    ]);
    expect(added.code, added.stderr).toBe(0);
    ({ id: sourceId, secret } = added.json as { id: string; secret: string });
    // Transaction i is a create of 100,000 + 1,000 i: its total (with a unique code under 1,000) is in a
    // band of its own, so no two transactions hold one total.
    for (let from = 0; from < TRANSACTIONS; from += 25) {
      const batch = Array.from({ length: 25 }, (_, k) => from + k);
      const created = await Promise.all(batch.map((i) => createLive(g.url, g.liveKey, 100_000 + 1_000 * i)));
      for (const [k, tx] of created.entries()) {
        trxids[batch[k]!] = tx.trxid as string;
        totals[batch[k]!] = tx.total_amount as number;
      }
    }
    const paidAt = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
    const unix = Math.floor(Date.now() / 1000);
    posts = plan.map(({ id, target }) => {
      const body = JSON.stringify({ id, amount: 'tx' in target ? totals[target.tx] : target.amount, paid_at: paidAt });
      return { body, signature: signPayload(secret, body, unix) };
    });

    let gateway = g.process;
    let from = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const storm = await runStorm(gateway, from);
      from = Math.max(...storm.storm.keys()) + 1;
      gateway = await g.startAnother();
      const afterCrash = await readStored();
      // A sender whose post got no answer posts the same bytes again, to the process that replaced the
      // dead one, before the next storm.
      const unanswered = [...storm.storm].filter(([, seen]) => 'error' in seen).map(([i]) => i);
      const retried = new Map<number, Seen>();
      let next = 0;
      const sender = async () => {
        while (next < unanswered.length) {
          const i = unanswered[next++]!;
          retried.set(i, await post(gateway.url, i));
        }
      };
      await Promise.all(Array.from({ length: SENDERS }, sender));
      rounds.push({ ...storm, afterCrash, retried, afterRetry: await readStored() });
      const acks = [...storm.storm.values()].filter(acknowledged).length;
      console.info(
        `${onPostgres ? 'PostgreSQL' : 'SQLite'}, kill ${r + 1}: ${storm.storm.size} reports sent in ` +
          `${Math.round(storm.stormMs)} ms, killed after ${storm.answeredAtKill} answers with ` +
          `${storm.sentAtKill - storm.answeredAtKill} in flight; ${acks} acknowledged, ${unanswered.length} ` +
          `unanswered, ${unanswered.filter((i) => afterCrash.byIndex.has(i)).length} of them stored`,
      );
    }
    last = gateway;
  },
  // 15 to 25 s on a busy 2-core machine; the first start after an edit of src/ builds dist/ (about 25 s more).
  180_000,
);
afterAll(async () => {
  agent.destroy();
  await g?.stop();
});

describe('kill -9 during a payment storm', () => {
  it('killed each gateway with reports in flight, after hundreds were acknowledged', () => {
    expect(rounds).toHaveLength(ROUNDS);
    for (const [r, round] of rounds.entries()) {
      const answers = [...round.storm.values()];
      expect(answers.filter(acknowledged).length, `kill ${r + 1}`).toBeGreaterThanOrEqual(KILL_AFTER);
      // Counted by the test when it sent the kill: posts sent, and not answered by then.
      expect(round.sentAtKill - round.answeredAtKill, `kill ${r + 1}`).toBeGreaterThan(0);
      // The post started in the tick of the kill got no answer and stored nothing; the others in flight may
      // have been answered after the kill (written before it), stored without an answer, or not stored.
      expect(round.storm.get(round.cutIndex), `kill ${r + 1}`).toHaveProperty('error');
      expect(round.afterCrash.byIndex.has(round.cutIndex), `kill ${r + 1}`).toBe(false);
      // Every answer that came was a 200, no outage and no shedding; each report is posted once in the
      // storms, so it is recorded (matched or unmatched), never a duplicate, and both came before the kill.
      const refused = [...round.storm].filter(([, seen]) => 'status' in seen && !acknowledged(seen));
      expect(refused.map(([i, seen]) => `kill ${r + 1}, report ${i}: ${JSON.stringify(seen)}`)).toEqual([]);
      const statuses = new Set(answers.filter(acknowledged).map((seen) => seen.data.status));
      expect([...statuses].sort(), `kill ${r + 1}`).toEqual(['matched', 'unmatched']);
    }
    // The storms were cut short: the rest of the plan was never sent.
    expect(rounds.reduce((n, round) => n + round.storm.size, 0)).toBeLessThan(REPORTS);
  });

  it('each next process holds every report acknowledged before, once, as it was answered', () => {
    const problems: string[] = [];
    for (const [r, round] of rounds.entries()) {
      for (const [i, answer] of acknowledgements(r, false))
        problems.push(...storedAsAnswered(round.afterCrash, i, answer).map((p) => `after kill ${r + 1}, ${p}`));
    }
    expect(problems).toEqual([]);
  });

  it('what each dead process stored is whole, answered or not', () => {
    for (const [r, round] of rounds.entries())
      expect(inconsistencies(round.afterCrash, sentBy(r)), `after kill ${r + 1}`).toEqual([]);
  });

  it('each unanswered report, sent again, is answered 200: a duplicate if it was stored, else recorded now', () => {
    const problems: string[] = [];
    for (const [r, round] of rounds.entries()) {
      expect(round.retried.size).toBe([...round.storm.values()].filter((seen) => 'error' in seen).length);
      for (const [i, seen] of round.retried) {
        const before = round.afterCrash.byIndex.get(i);
        const where = `kill ${r + 1}, report ${i}, stored ${JSON.stringify(before)}, answered ${JSON.stringify(seen)}`;
        if (!acknowledged(seen)) {
          problems.push(`${where}: not a 200`);
          continue;
        }
        problems.push(...storedAsAnswered(round.afterRetry, i, seen.data).map((p) => `kill ${r + 1}, retry: ${p}`));
        if (before !== undefined) {
          if (seen.data.status !== 'duplicate' || seen.data.payment_id !== before.id)
            problems.push(`${where}: not its duplicate`);
        } else if (seen.data.status === 'duplicate') problems.push(`${where}: a duplicate of nothing stored`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('in the end every report sent is stored once, as answered, and the totals add up', async () => {
    const end = rounds[rounds.length - 1]!.afterRetry;
    const sent = rounds.flatMap((round) => [...round.storm.keys()]).sort((x, y) => x - y);
    expect(inconsistencies(end, sentBy(rounds.length - 1))).toEqual([]);
    // Every report sent, and no other, is stored: those answered in the storms and those sent again.
    expect([...end.byIndex.keys()].sort((x, y) => x - y)).toEqual(sent);
    expect(end.payments).toHaveLength(sent.length);
    // Every answer still holds after all the kills.
    const all = acknowledgements(rounds.length - 1, true);
    expect(all.flatMap(([i, answer]) => storedAsAnswered(end, i, answer))).toEqual([]);
    // A transaction is paid exactly when one of its totals was reported, each by one payer; every other
    // report of its total is a double payment, every stray report unmatched.
    const targets = sent.map((i) => plan[i]!.target);
    const reported = new Set(targets.flatMap((t) => ('tx' in t ? [trxids[t.tx]!] : [])));
    const paid = [...end.transactions].filter(([, tx]) => tx.status === 'paid').map(([trxid]) => trxid);
    expect(paid.sort()).toEqual([...reported].sort());
    const count = (state: string, reason: string | null) =>
      end.payments.filter((p) => p.status === state && p.reason === reason).length;
    const paying = targets.filter((t) => 'tx' in t).length;
    expect(count('matched', null)).toBe(reported.size);
    expect(count('unmatched', 'transaction_already_paid')).toBe(paying - reported.size);
    expect(count('unmatched', 'no_matching_transaction')).toBe(targets.length - paying);
    const events = (type: string) => end.events.filter((e) => e.type === type).length;
    expect(events('transaction.paid')).toBe(reported.size);
    expect(events('payment.unmatched')).toBe(targets.length - reported.size);
    // The live process serves the same: each transaction answered as paid reads as paid by that payment.
    for (const [, answer] of all.filter(([, a]) => a.status === 'matched')) {
      expect(await status(last.url, g.liveKey, answer.trxid!)).toMatchObject({
        status: 'paid',
        payment: { id: answer.payment_id },
      });
    }
  });
});
