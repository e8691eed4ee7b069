// The seeded world (test/helpers/seeded-world.ts) listening on loopback, seen as the fuzz sees it: its
// routes, who may ask, which values fill a route's parameters, and the seeded rows that must not change.
import type { AddressInfo } from 'node:net';
import { routeTable } from '../../src/http/route-table.js';
import { addWebhookSource } from '../../src/payment-sources/webhook/setup.js';
import { recordPayment } from '../../src/services/payments/record-payment.js';
import { createTransaction } from '../../src/services/transactions/create-transaction.js';
import { addWebhookEndpoint } from '../../src/services/webhooks/add-webhook-endpoint.js';
import { addNotifyChannel } from '../../src/services/notify/add-notify-channel.js';
import { createInput } from '../helpers/context.js';
import { fillParams, startSeededWorld, type MerchantIds, type SeededWorld } from '../helpers/seeded-world.js';
import type { FuzzTarget, Identity, ParamValues } from './generators.js';

export interface FuzzWorld extends FuzzTarget {
  world: SeededWorld;
  port: number;
  /** The seeded rows as they were before the fuzz (every table, see SeededWorld.snapshot). */
  before: Record<string, unknown[]>;
  close(): Promise<void>;
}

/**
 * Tables whose seeded rows count things that hostile requests may legitimately add to: a day's creates
 * (a create, a link open) and failed logins. Every other seeded row must come through unchanged.
 */
export const COUNTER_TABLES = new Set(['daily_creates', 'login_throttles']);

export async function startFuzzWorld(env: Record<string, string> = {}): Promise<FuzzWorld> {
  const world = await startSeededWorld(env);
  try {
    await world.t.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (world.t.app.server.address() as AddressInfo).port;
    const before = await world.snapshot();
    const { A, B } = world.merchants;
    const spare = await spareRows(world, A.ids);
    // Variants, so that every kind of row a parameter can name is reached (a paid transaction, a live key).
    const variants = (ids: MerchantIds): MerchantIds[] => [
      ids,
      { ...ids, trxid: ids.paidTrxid, keyId: ids.liveKeyId, file: `${ids.paidTrxid}.svg` },
    ];
    const slotValues = (url: string, slot: number, all: MerchantIds[]): string[] => {
      const values = new Set<string>();
      for (const ids of all) {
        try {
          const raw = fillParams(url, ids).split('/')[slot];
          if (raw !== undefined) values.add(decodeURIComponent(raw));
        } catch {
          // A route with a parameter the world has no value for: it gets hostile values only.
        }
      }
      return [...values];
    };
    const memo = new Map<string, ParamValues>();
    const params = (url: string, slot: number): ParamValues => {
      const key = `${url}#${slot}`;
      let values = memo.get(key);
      if (!values) {
        const seeded = slotValues(url, slot, variants(A.ids));
        const foreign = slotValues(url, slot, variants(B.ids));
        // Only what really is spare: a parameter the spare rows do not name (a merchant's id) keeps A's value.
        const spareValues = slotValues(url, slot, [spare]).filter((v) => !seeded.includes(v) && !foreign.includes(v));
        values = { seeded, foreign, spare: spareValues };
        memo.set(key, values);
      }
      return values;
    };
    const identity = (
      name: Identity['name'],
      viewer: SeededWorld['viewers'][keyof SeededWorld['viewers']],
    ): Identity => ({
      name,
      cookie: viewer.cookie,
      csrf: viewer.csrf,
    });
    return {
      world,
      port,
      before,
      routes: routeTable(world.t.app),
      identities: [
        identity('anonymous', world.viewers.anonymous),
        identity('operator', world.viewers.operator),
        identity('merchant', world.viewers.userA),
      ],
      keys: [A.testKey, A.liveKey],
      params,
      // The other merchant's rows (its own key is never used), and A's spare ones.
      queryIds: [
        ...new Set([
          ...Object.values(B.ids),
          B.ids.paidTrxid,
          spare.trxid,
          spare.paymentId,
          spare.endpointId,
          spare.channelId,
          spare.sourceId,
        ]),
      ],
      formWords: await formWords(world),
      close: () => world.close(),
    };
  } catch (err) {
    await world.close();
    throw err;
  }
}

/**
 * The field names and plain values of the console's own forms, read from its pages as the operator and
 * the merchant user see them: a form the console gains tomorrow is fuzzed with its own fields. Ids are
 * left out (a seeded row's id in a body could legitimately change that row).
 */
async function formWords(world: SeededWorld): Promise<FuzzTarget['formWords']> {
  const names = new Set<string>();
  const values = new Set<string>();
  const uploadActions = new Set<string>();
  const fieldsByAction = new Map<string, Set<string>>();
  const table = routeTable(world.t.app);
  const pages = table.filter((r) => r.method === 'GET' && r.url.startsWith('/dashboard') && !r.url.includes('*'));
  for (const route of pages) {
    let url: string;
    try {
      url = fillParams(route.url, world.merchants.A.ids);
    } catch {
      continue;
    }
    for (const viewer of [world.viewers.operator, world.viewers.userA]) {
      const page = (await viewer.get(url)).body;
      for (const m of page.matchAll(/\bname="([^"]{1,40})"/g)) if (m[1] !== '_csrf') names.add(m[1]!);
      for (const m of page.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
        const action = /\baction="([^"]+)"/.exec(m[1]!)?.[1];
        if (!action) continue;
        if (m[1]!.includes('multipart/form-data')) uploadActions.add(action);
        const fields = fieldsByAction.get(action) ?? new Set<string>();
        for (const f of m[2]!.matchAll(/\bname="([^"]{1,40})"/g)) if (f[1] !== '_csrf') fields.add(f[1]!);
        fieldsByAction.set(action, fields);
      }
      for (const m of page.matchAll(/<(?:option|input)\b[^>]*\bvalue="([^"]{1,60})"/g)) {
        if (!/^[a-z]{2,5}_[0-9A-Za-z]{8,}/.test(m[1]!) && !m[0].includes('name="_csrf"')) values.add(m[1]!);
      }
    }
  }
  // The routes those forms post to, by their pattern.
  const uploadRoutes = new Set<string>();
  const fieldsByRoute = new Map<string, readonly string[]>();
  for (const route of table.filter((r) => r.method === 'POST')) {
    let action: string;
    try {
      action = fillParams(route.url, world.merchants.A.ids);
    } catch {
      continue; // A parameter the world cannot fill: not a form's action.
    }
    const key = `${route.method} ${route.url}`;
    if (uploadActions.has(action)) uploadRoutes.add(key);
    const fields = fieldsByAction.get(action);
    if (fields && fields.size > 0) fieldsByRoute.set(key, [...fields].sort());
  }
  return { names: [...names].sort(), values: [...values].sort(), uploadRoutes, fieldsByRoute };
}

/** Rows of merchant A made after the snapshot, for the fuzz to cancel, pay, remove or disable. */
async function spareRows(world: SeededWorld, ids: MerchantIds): Promise<MerchantIds> {
  const deps = world.t.deps;
  const merchantId = ids.merchantId;
  const trx = (await createTransaction(deps, createInput(merchantId, 64_100, { ref: 'spare-1' }))).transaction;
  const payment = await recordPayment(deps, {
    merchantId,
    mode: 'test',
    source: 'manual',
    sourcePaymentId: 'spare-stray',
    amount: 99_991,
    paidAt: deps.now(),
    reference: 'SPARE',
  });
  const endpoint = await addWebhookEndpoint(deps, { merchantId, url: 'http://127.0.0.1:9/hooks/spare' });
  const source = await addWebhookSource(deps, { merchantId, mode: 'test' });
  const channel = await addNotifyChannel(deps, { merchantId, type: 'email' });
  return {
    ...ids,
    trxid: trx.id,
    paidTrxid: trx.id,
    paymentId: payment.payment.id,
    endpointId: endpoint.id,
    channelId: channel.id,
    sourceId: source.id,
    file: `${trx.id}.png`,
  };
}

/**
 * How the seeded rows differ from `before`: every row that was there must still be there, unchanged
 * (rows the fuzz added are fine), except in the counter tables. Empty when nothing seeded changed.
 */
export function seededChanges(before: Record<string, unknown[]>, after: Record<string, unknown[]>): string[] {
  const changes: string[] = [];
  for (const [table, rows] of Object.entries(before)) {
    if (COUNTER_TABLES.has(table)) continue;
    const now = after[table] ?? [];
    const texts = new Set(now.map((r) => JSON.stringify(r)));
    for (const row of rows) {
      if (texts.has(JSON.stringify(row))) continue;
      const was = row as Record<string, unknown>;
      const is = now.find(
        (r) => (r as Record<string, unknown>).id !== undefined && (r as Record<string, unknown>).id === was.id,
      ) as Record<string, unknown> | undefined;
      const diff = is
        ? Object.keys(was)
            .filter((k) => JSON.stringify(was[k]) !== JSON.stringify(is[k]))
            .map((k) => `${k}: ${JSON.stringify(was[k])} -> ${JSON.stringify(is[k])}`)
        : ['the row is gone'];
      changes.push(`${table} ${String(was.id ?? JSON.stringify(row).slice(0, 120))}: ${diff.join(', ')}`);
    }
  }
  return changes;
}
