// A gateway with everything a hostile-input or isolation test needs to point at (issue 23): two merchants
// with keys, transactions, payments, endpoints, sources and link handles; an operator and one user of each
// merchant, and a cashier of A with a sale of its own beside another cashier's (issue 35), logged in
// through the real login form. The isolation matrix and the fuzz test share it.
import { makeReceiptLink } from '../../src/services/receipts/make-receipt-link.js';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { formatRupiah } from '../../src/domain/money.js';
import { addWebhookSource } from '../../src/payment-sources/webhook/setup.js';
import { chargeSale } from '../../src/services/pos/charge-sale.js';
import { addUser } from '../../src/services/users/add-user.js';
import { createApiKey } from '../../src/services/merchants/create-api-key.js';
import { createMerchant } from '../../src/services/merchants/create-merchant.js';
import { setPaymentLinkHandle } from '../../src/services/payment-links/set-handle.js';
import { recordPayment } from '../../src/services/payments/record-payment.js';
import { createTransaction } from '../../src/services/transactions/create-transaction.js';
import type { Viewer } from '../../src/domain/viewer.js';
import { addWebhookEndpoint } from '../../src/services/webhooks/add-webhook-endpoint.js';
import { addNotifyChannel } from '../../src/services/notify/add-notify-channel.js';
import type { DB } from '../../src/storage/schema.js';
import { addMerchantUser, addOperator, ConsoleClient, csrfOf, PASSWORD, TEST_ACTOR } from './console.js';
import { createInput, createTestApp, type TestApp, vectors } from './context.js';
import { startTestSmtpServer, type TestSmtpServer } from './smtp-server.js';

/** What fills a route's parameters for one merchant (see fillParams); a type, so it is a Record<string, string> too. */
export type MerchantIds = {
  merchantId: string;
  /** A pending test transaction (the one `:trxid` routes get). */
  trxid: string;
  paidTrxid: string;
  /** The paid transaction's transaction.paid event (`/dashboard/transactions/:trxid/resend`). */
  eventId: string;
  /** An unmatched test payment. */
  paymentId: string;
  endpointId: string;
  /** An alert channel (e-mail to the merchant's users: a Send test goes to the world's SMTP server). */
  channelId: string;
  sourceId: string;
  handle: string;
  /** The test key's id (`/dashboard/keys/:id`). */
  keyId: string;
  liveKeyId: string;
  /** The merchant's console user. */
  userId: string;
  /** The pending transaction's ref and payer address (what a search box is given). */
  ref: string;
  email: string;
  /** A link amount (`/pay/:handle/:amount`). */
  amount: string;
  /** The pending transaction's QR image (`/api/payment-gateway/qr/:file`). */
  file: string;
  lang: string;
  /** The paid transaction's receipt link (`/receipt/:token`, migration 016). */
  receiptToken: string;
};

export interface WorldMerchant {
  ids: MerchantIds;
  name: string;
  testKey: string;
  liveKey: string;
  /** The webhook source's signing secret. */
  sourceSecret: string;
  webhookUrl: string;
  /** Strings that are this merchant's data: none may appear in an answer to the other merchant's viewer. */
  marks: string[];
}

export type ViewerName = 'operator' | 'userA' | 'userB' | 'anonymous' | 'cashierA';

/** One viewer of the console: requests carry its session cookie, and POSTs a CSRF token valid for it. */
export interface WorldViewer {
  name: ViewerName;
  /** The Cookie header (empty for anonymous). */
  cookie: string;
  /** A CSRF token bound to this session (anonymous: one bound to the logged-out state). */
  csrf: string;
  email: string | null;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** A form post; `_csrf` is added unless `fields` has one (pass `_csrf: ''` to post without). */
  post(
    url: string,
    fields?: Record<string, string | string[]>,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  /** Any request, with this viewer's cookie. */
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
}

/** Two pending point-of-sale sales of merchant A (live: A may sell live), both among A's marks. */
export interface WorldSales {
  /** Made by the `cashierA` viewer. */
  own: string;
  /** Made by another cashier of A. */
  others: string;
}

export interface SeededWorld {
  t: TestApp;
  smtp: TestSmtpServer;
  merchants: { A: WorldMerchant; B: WorldMerchant };
  /** `cashierA` is a cashier of A; its console opens on the point of sale. */
  viewers: Record<ViewerName, WorldViewer>;
  sales: WorldSales;
  /** Every table's rows (volatile columns left out), in a stable order: equal before and after means nothing changed. */
  snapshot(): Promise<Record<string, unknown[]>>;
  close(): Promise<void>;
}

/**
 * Which key of MerchantIds a route parameter takes. `:id` is read by the segment before it
 * (`/dashboard/keys/:id` is a key's id); `*` takes `wildcard` when the caller gives one.
 */
const PARAM_KEYS: Record<string, string> = {
  merchantId: 'merchantId',
  trxid: 'trxid',
  handle: 'handle',
  amount: 'amount',
  file: 'file',
  source: 'sourceId',
  lang: 'lang',
  token: 'receiptToken',
};
const ID_BY_SEGMENT: Record<string, string> = {
  users: 'userId',
  payments: 'paymentId',
  webhooks: 'endpointId',
  notifications: 'channelId',
  sources: 'sourceId',
  merchants: 'merchantId',
  keys: 'keyId',
};

/**
 * A concrete URL from a route pattern and one merchant's ids. A parameter it cannot fill throws with the
 * route's and the parameter's names, so a route with a new kind of parameter fails the test that walks it.
 */
/** Placeholder values for every route parameter: no route needs a real object to refuse a key, a method or a slow body. */
export const PLACEHOLDER_IDS: Readonly<Record<string, string>> = {
  file: 'trx_000000000000000000000000000000.png',
  sourceId: 'src_unknown',
  trxid: 'trx_abc',
  merchantId: 'mch_abc',
  userId: 'usr_abc',
  paymentId: 'pay_abc',
  endpointId: 'we_abc',
  channelId: 'nch_abc',
  keyId: 'key_abc',
  handle: 'some-shop',
  amount: '25000',
  lang: 'en',
};

export function fillParams(url: string, ids: Readonly<Record<string, string>>): string {
  const segments = url.split('/');
  return segments
    .map((segment, i) => {
      if (segment === '*') {
        if (ids.wildcard === undefined) throw new Error(`route ${url}: no value for its wildcard *`);
        return ids.wildcard;
      }
      if (!segment.startsWith(':')) return segment;
      const param = segment.slice(1);
      const key = param === 'id' ? ID_BY_SEGMENT[segments[i - 1] ?? ''] : PARAM_KEYS[param];
      const value = key === undefined ? undefined : ids[key];
      if (value === undefined)
        throw new Error(
          `route ${url}: no value for its parameter :${param}${param === 'id' ? ` after /${segments[i - 1]}` : ''}`,
        );
      return encodeURIComponent(value);
    })
    .join('/');
}

/** Columns a read may touch (a page view, a key's use): the snapshot leaves them out. */
const VOLATILE: Record<string, readonly string[]> = {
  sessions: ['last_seen_at'],
  api_keys: ['last_used_at'],
  users: ['last_login_at'],
};
const TABLES: ReadonlyArray<keyof DB> = [
  'merchants',
  'api_keys',
  'transactions',
  'payments',
  'reserved_totals',
  'idempotency_keys',
  'daily_creates',
  'webhook_endpoints',
  'events',
  'deliveries',
  'delivery_attempts',
  'notify_channels',
  'notify_deliveries',
  'notify_attempts',
  'emails',
  'payment_sources',
  'users',
  'user_merchants',
  'sessions',
  'user_tokens',
  'audit_log',
  'snap_polls',
  'snap_tokens',
  'snap_external_ids',
  'gateway_secrets',
];

/** The world; `env` adds settings (CONSOLE, SIGNUP and the SMTP server are always set). */
export async function startSeededWorld(env: Record<string, string> = {}): Promise<SeededWorld> {
  const smtp = await startTestSmtpServer();
  let t: TestApp | undefined;
  try {
    t = await createTestApp({
      CONSOLE: 'true',
      SIGNUP: 'open',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'gateway@example.test',
      WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8',
      ...env,
    });
    const app = t;
    const operatorUser = await addOperator(app.deps, 'ops@world.test', PASSWORD);
    const opViewer: Viewer = {
      userId: operatorUser.id,
      email: operatorUser.email,
      role: 'operator',
      merchantIds: [],
      sessionKey: 'seed',
      actor: { kind: 'user' as const, email: operatorUser.email },
    };
    // A is made by an operator (live keys work); B as a self-service user's merchant is, awaiting approval.
    const [A, B] = await Promise.all([
      seedWorldMerchant(app, opViewer, {
        vector: 1,
        name: 'Warung Alfa Kopi',
        tag: 'alfa',
        amount: 71_300,
        liveApproved: true,
      }),
      seedWorldMerchant(app, opViewer, {
        vector: 2,
        name: 'Toko Beta Sembako',
        tag: 'beta',
        amount: 82_400,
        liveApproved: false,
      }),
    ]);
    const sales = await seedSales(app, A);
    const [operator, userA, userB, anonymous, cashierA] = await Promise.all([
      logInViewer(app, 'operator', 'ops@world.test'),
      logInViewer(app, 'userA', 'user@alfa.test'),
      logInViewer(app, 'userB', 'user@beta.test'),
      anonymousViewer(app),
      logInViewer(app, 'cashierA', 'kasir@alfa.test', '/dashboard/pos'),
    ]);
    const viewers: Record<ViewerName, WorldViewer> = { operator, userA, userB, anonymous, cashierA };
    return {
      t: app,
      smtp,
      merchants: { A, B },
      viewers,
      sales,
      snapshot: () => snapshot(app),
      async close() {
        await app.close();
        await smtp.close();
      },
    };
  } catch (err) {
    await t?.close();
    await smtp.close();
    throw err;
  }
}

async function seedWorldMerchant(
  t: TestApp,
  operator: Viewer,
  spec: { vector: number; name: string; tag: string; amount: number; liveApproved: boolean },
): Promise<WorldMerchant> {
  const deps = t.deps;
  const merchant = await createMerchant(deps, {
    name: spec.name,
    qris: vectors.vectors[spec.vector]!.static,
    liveApproved: spec.liveApproved,
  });
  const user = await addMerchantUser(deps, [merchant.id], `user@${spec.tag}.test`, PASSWORD);
  const [testKey, liveKey] = [
    await createApiKey(deps, { merchantId: merchant.id, mode: 'test' }),
    await createApiKey(deps, { merchantId: merchant.id, mode: 'live' }),
  ];
  // A merchant awaiting approval may mail only its own users (issue 23, finding 7): B's payer is its user.
  const payerEmail = spec.liveApproved ? `payer@${spec.tag}.test` : user.email;
  const pending = (
    await createTransaction(
      deps,
      createInput(merchant.id, spec.amount, { ref: `order-${spec.tag}-1`, email: payerEmail }),
    )
  ).transaction;
  const paid = (
    await createTransaction(deps, createInput(merchant.id, spec.amount + 1_000, { ref: `order-${spec.tag}-2` }))
  ).transaction;
  await recordPayment(deps, {
    merchantId: merchant.id,
    mode: 'test',
    source: 'simulator',
    sourcePaymentId: `sim-${spec.tag}`,
    amount: paid.total_amount,
    paidAt: deps.now(),
    trxid: paid.id,
  });
  const receiptToken = await makeReceiptLink(deps, operator, paid.id);
  const event = await deps.db
    .selectFrom('events')
    .select('id')
    .where('transaction_id', '=', paid.id)
    .executeTakeFirstOrThrow();
  const unmatchedTotal = spec.amount + 2_777;
  const unmatched = await recordPayment(deps, {
    merchantId: merchant.id,
    mode: 'test',
    source: 'manual',
    sourcePaymentId: `stray-${spec.tag}`,
    amount: unmatchedTotal,
    paidAt: deps.now(),
    reference: `REF-${spec.tag.toUpperCase()}-STRAY`,
    payerName: `Payer ${spec.tag}`,
    issuer: 'DANA',
  });
  if (unmatched.outcome !== 'unmatched') throw new Error(`the stray payment of ${spec.tag} matched`);
  const webhookUrl = `http://127.0.0.1:9/hooks/${spec.tag}`;
  const endpoint = await addWebhookEndpoint(deps, { merchantId: merchant.id, url: webhookUrl });
  const source = await addWebhookSource(deps, { merchantId: merchant.id, mode: 'test' });
  const channel = await addNotifyChannel(deps, { merchantId: merchant.id, type: 'email' });
  const handle = `link-${spec.tag}`;
  await setPaymentLinkHandle(deps, operator, merchant.id, handle);
  const ids: MerchantIds = {
    merchantId: merchant.id,
    trxid: pending.id,
    paidTrxid: paid.id,
    eventId: event.id,
    paymentId: unmatched.payment.id,
    endpointId: endpoint.id,
    channelId: channel.id,
    sourceId: source.id,
    handle,
    keyId: testKey.id,
    liveKeyId: liveKey.id,
    userId: user.id,
    ref: `order-${spec.tag}-1`,
    email: payerEmail,
    amount: '25000',
    file: `${pending.id}.png`,
    lang: 'en',
    receiptToken,
  };
  const amounts = [pending.total_amount, paid.total_amount, unmatchedTotal];
  const marks = [
    ...Object.values(ids).filter((v) => v !== ids.amount && v !== ids.lang && v !== ids.file),
    spec.name,
    merchant.merchant_name,
    `order-${spec.tag}-1`,
    `order-${spec.tag}-2`,
    payerEmail,
    `user@${spec.tag}.test`,
    `REF-${spec.tag.toUpperCase()}-STRAY`,
    `Payer ${spec.tag}`,
    webhookUrl,
    testKey.prefix,
    liveKey.prefix,
    ...amounts.map((n) => formatRupiah(n)),
  ];
  return {
    ids,
    name: spec.name,
    testKey: testKey.key,
    liveKey: liveKey.key,
    sourceSecret: source.secret,
    webhookUrl,
    marks: [...new Set(marks)],
  };
}

/** Two cashiers of the merchant, each with a pending sale made through the point of sale's own service. */
async function seedSales(t: TestApp, merchant: WorldMerchant): Promise<WorldSales> {
  const merchantId = merchant.ids.merchantId;
  const sale = async (email: string, amount: string): Promise<string> => {
    const user = await addUser(
      t.deps,
      { email, password: PASSWORD, role: 'cashier', merchantIds: [merchantId] },
      TEST_ACTOR,
    );
    const viewer: Viewer = {
      userId: user.id,
      email: user.email,
      role: 'cashier',
      merchantIds: [merchantId],
      sessionKey: 'seed',
      actor: { kind: 'user' as const, email: user.email },
    };
    const made = await chargeSale(t.deps, viewer, { merchantId, amount, note: '', key: `seed-sale-${user.id}` });
    return made.transaction.id;
  };
  const sales = { own: await sale('kasir@alfa.test', '61000'), others: await sale('kasir2@alfa.test', '62000') };
  merchant.marks.push(sales.own, sales.others);
  return sales;
}

function viewerOf(
  t: TestApp,
  name: ViewerName,
  email: string | null,
  client: ConsoleClient,
  csrf: string,
): WorldViewer {
  const cookie = client.jar.header();
  const inject = (options: InjectOptions) =>
    t.app.inject({ ...options, headers: { ...(cookie ? { cookie } : {}), ...(options.headers ?? {}) } });
  return {
    name,
    cookie,
    csrf,
    email,
    get: (url, headers = {}) => inject({ method: 'GET', url, headers }),
    post(url, fields = {}, headers = {}) {
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries({ _csrf: csrf, ...fields }))
        for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
      return inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload: form.toString(),
      });
    },
    inject,
  };
}

/** Logs in through the login form, as a browser does, and reads a CSRF token from its home page (the overview). */
async function logInViewer(t: TestApp, name: ViewerName, email: string, home = '/dashboard'): Promise<WorldViewer> {
  const client = new ConsoleClient(t.app);
  const res = await client.logIn(email, PASSWORD);
  if (res.statusCode !== 303) throw new Error(`the login of ${email} answered ${res.statusCode}`);
  const csrf = csrfOf((await client.get(home)).body);
  return viewerOf(t, name, email, client, csrf);
}

/** Logged out: the login form's token and the CSRF secret cookie it came with. */
async function anonymousViewer(t: TestApp): Promise<WorldViewer> {
  const client = new ConsoleClient(t.app);
  const csrf = csrfOf((await client.get('/dashboard')).body);
  return viewerOf(t, 'anonymous', null, client, csrf);
}

async function snapshot(t: TestApp): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    const rows = (await t.deps.db.selectFrom(table).selectAll().execute()) as Array<Record<string, unknown>>;
    const skip = VOLATILE[table] ?? [];
    out[table] = rows
      .map((row) =>
        JSON.stringify(
          Object.fromEntries(
            Object.entries(row)
              .filter(([k]) => !skip.includes(k))
              .map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]),
          ),
        ),
      )
      .sort()
      .map((s) => JSON.parse(s) as unknown);
  }
  return out;
}
