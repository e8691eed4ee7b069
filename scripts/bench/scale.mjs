// @ts-check
// --scale: status reads at 1,000 rows and again at a million history rows filled straight through the driver.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { SCALE_ROWS } from './options.mjs';
import { round } from './measure.mjs';
import { row, runLoad } from './load.mjs';
import { workDir } from './processes.mjs';
import { prepareDatabase, startGateway } from './servers.mjs';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export function fastSuffixes(n, length) {
  // Fill rows need ids shaped like real ones (trx_, the creation millisecond in 9 base-36 digits, then 22
  // base62 characters: src/domain/ids.ts); a slight modulo bias does not matter here.
  const bytes = randomBytes(n * length);
  const suffixes = new Array(n);
  for (let i = 0; i < n; i++) {
    let s = '';
    for (let j = 0; j < length; j++) s += BASE62[bytes[i * length + j] % 62];
    suffixes[i] = s;
  }
  return suffixes;
}

/**
 * Realistic history rows: past transactions of the bench merchant spread over 90 days, mostly expired
 * or paid, with a real dynamic QRIS payload. reserved_totals is left empty on purpose: these are old
 * transactions whose reservations have lapsed, and they must not make creates slower or fail.
 */
export function* historyRows(database, count, startIndex, totalPlanned) {
  const now = Date.now();
  const span = 90 * 86_400_000;
  const oldest = now - span - 3_600_000;
  const chunk = 10_000;
  for (let done = 0; done < count; done += chunk) {
    const n = Math.min(chunk, count - done);
    const suffixes = fastSuffixes(n, 22);
    const rows = new Array(n);
    for (let k = 0; k < n; k++) {
      const i = startIndex + done + k;
      const created = oldest + Math.floor((i / totalPlanned) * span);
      const amount = 1000 + ((i * 7919) % 2_000_000);
      const code = 1 + (i % 999);
      // Only final states: the expiry sweeper would long since have expired every overdue pending row. A
      // fill that leaves overdue pending rows makes the sweeper's first passes expire them all (with
      // their outbox events) during the measurement, which measures a backlog, not scale.
      const status = i % 20 < 7 ? 'paid' : 'expired';
      rows[k] = {
        id: `trx_${created.toString(36).padStart(9, '0')}${suffixes[k]}`,
        merchant_id: database.merchantId,
        mode: 'live',
        status,
        amount,
        unique_code: code,
        total_amount: amount + code,
        currency: 'IDR',
        email: i % 3 === 0 ? `buyer${i}@example.com` : null,
        ref: i % 2 === 0 ? `order-${i}` : null,
        qris: database.dynamicSample,
        created_at: created,
        expires_at: created + 900_000,
        paid_at: status === 'paid' ? created + 60_000 : null,
        paid_late: 0,
        payment_id: null,
        updated_at: status === 'paid' ? created + 60_000 : created + 900_000,
      };
    }
    yield rows;
  }
}
export const FILL_COLUMNS = [
  'id',
  'merchant_id',
  'mode',
  'status',
  'amount',
  'unique_code',
  'total_amount',
  'currency',
  'email',
  'ref',
  'qris',
  'created_at',
  'expires_at',
  'paid_at',
  'paid_late',
  'payment_id',
  'updated_at',
];

/** Bulk-inserts history rows straight through the driver; returns a spread sample of their ids. */
export async function fillTransactions(database, count, startIndex, totalPlanned, sampleEvery) {
  const sample = [];
  const started = Date.now();
  if (database.kind === 'sqlite') {
    const { default: Sqlite } = await import('better-sqlite3');
    const db = new Sqlite(database.url.slice('sqlite:'.length));
    db.pragma('busy_timeout = 10000');
    // Only this filling connection skips fsyncs; the server keeps synchronous=FULL for its own writes.
    db.pragma('synchronous = OFF');
    const insert = db.prepare(
      `INSERT INTO transactions (${FILL_COLUMNS.join(',')}) VALUES (${FILL_COLUMNS.map((c) => `@${c}`).join(',')})`,
    );
    // Big transactions: one commit per 100,000 rows rather than one per row.
    const insertMany = db.transaction((batch) => {
      for (const r of batch) insert.run(r);
    });
    let pending = [];
    let seen = 0;
    for (const rows of historyRows(database, count, startIndex, totalPlanned)) {
      for (const r of rows) if (seen++ % sampleEvery === 0) sample.push(r.id);
      pending.push(...rows);
      if (pending.length >= 100_000) {
        insertMany(pending);
        pending = [];
      }
    }
    if (pending.length) insertMany(pending);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
  } else {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    // unnest over column arrays: one statement carries 10,000 rows with only 17 parameters.
    const types = [
      'text',
      'text',
      'text',
      'text',
      'bigint',
      'integer',
      'bigint',
      'text',
      'text',
      'text',
      'text',
      'bigint',
      'bigint',
      'bigint',
      'integer',
      'text',
      'bigint',
    ];
    const sql = `INSERT INTO transactions (${FILL_COLUMNS.join(',')}) SELECT * FROM unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(',')})`;
    let seen = 0;
    let inTx = 0;
    await client.query('BEGIN');
    for (const rows of historyRows(database, count, startIndex, totalPlanned)) {
      for (const r of rows) if (seen++ % sampleEvery === 0) sample.push(r.id);
      await client.query(
        sql,
        FILL_COLUMNS.map((c) => rows.map((r) => r[c])),
      );
      inTx += rows.length;
      if (inTx >= 100_000) {
        await client.query('COMMIT');
        await client.query('BEGIN');
        inTx = 0;
      }
    }
    await client.query('COMMIT');
    // Autovacuum would analyze a table that grew this much; do it now rather than measure stale stats.
    await client.query('ANALYZE transactions');
    await client.end();
  }
  process.stderr.write(
    `bench: ${database.kind}: inserted ${count.toLocaleString('en')} rows in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return sample;
}

export async function scaleScenarios(kind, baselineRps, logChoice) {
  const database = await prepareDatabase(kind, `scale-${kind}`);
  const logFile = logChoice ?? join(workDir, `gateway-scale-${kind}.log`);
  const small = 1000;
  const rows = [];
  // Fill the first 1,000 before the server starts, the rest while it is idle between measurements.
  const smallIds = await fillTransactions(database, small, 0, SCALE_ROWS, 1);
  const gateway = await startGateway(database, logFile);
  const headers = { 'x-api-key': database.apiKey };
  const measure = async (label, ids) => {
    for (const s of [
      {
        name: `cstatus-id@${label}`,
        kind: 'cycle',
        paths: ids.map((id) => `/api/payment-gateway/cstatus?trxid=${id}`),
      },
      { name: `cstatus-list@${label}`, kind: 'static', path: '/api/payment-gateway/cstatus?limit=20' },
    ]) {
      process.stderr.write(`bench: ${kind}: ${s.name}\n`);
      rows.push(row(kind, s.name, await runLoad(gateway, { ...s, headers }), baselineRps));
    }
  };
  try {
    await runLoad(gateway, {
      name: 'warmup',
      kind: 'static',
      path: '/api/payment-gateway/cstatus?limit=20',
      duration: 2,
      headers,
    });
    await measure('1k', smallIds);
    const rest = SCALE_ROWS - small;
    // Look-ups at scale use ids spread over the whole table, so they are not all in a hot corner.
    const bigSample = await fillTransactions(database, rest, small, SCALE_ROWS, Math.max(1, Math.floor(rest / 2000)));
    await measure(
      SCALE_ROWS >= 1e6 ? `${SCALE_ROWS / 1e6}M` : String(SCALE_ROWS),
      bigSample.concat(smallIds.slice(0, 100)),
    );
  } finally {
    await gateway.stop();
  }
  const checks = [];
  for (const what of ['cstatus-id', 'cstatus-list']) {
    const a = rows.find((r) => r.scenario.startsWith(`${what}@1k`));
    const b = rows.find((r) => r.scenario.startsWith(`${what}@`) && r !== a);
    const ratio = round(b.latencyMs.p99 / a.latencyMs.p99, 2);
    checks.push({
      db: kind,
      target: `${what} p99 at ${SCALE_ROWS.toLocaleString('en')} rows within 1.5x of 1,000 rows`,
      value: ratio,
      ok: ratio <= 1.5,
    });
  }
  return { rows, checks };
}
