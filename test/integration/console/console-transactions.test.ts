// The console's transaction list and its CSV export, through inject, on the suite's database.
import { afterEach, describe, expect, it } from 'vitest';
import { exportTransactions } from '../../../src/services/transactions/export-transactions.js';
import { parseTransactionFilters } from '../../../src/domain/transaction-filters.js';
import { CSV_COLUMNS } from '../../../src/web/console/pages/transactions-csv.js';
import type { TransactionsTable } from '../../../src/storage/schema.js';
import { addMerchantUser, addOperator, ConsoleClient } from '../../helpers/console.js';
import { createTestApp, seedMerchant, type TestApp } from '../../helpers/context.js';
import { insertRows, transactionRow } from '../../helpers/transaction-rows.js';

/** The trxids of a list page, in the order shown. */
const listed = (body: string) =>
  [...body.matchAll(/<a class="mono" href="\/dashboard\/transactions\/(trx_[0-9A-Za-z]+)">/g)].map((m) => m[1]!);
const link = (body: string, rel: 'next' | 'prev') => {
  const m = new RegExp(`rel="${rel}" href="([^"]+)"`).exec(body);
  return m ? m[1]!.replace(/&amp;/g, '&') : null;
};
const alerts = (body: string) =>
  [...body.matchAll(/<p class="notice error" role="alert">([^<]*)<\/p>/g)].map((m) => m[1]!);

/** A CSV text as records of fields (RFC 4180: quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(cell);
      records.push(record);
      record = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell !== '' || record.length > 0) throw new Error('the CSV does not end with CRLF');
  return records;
}

describe('console transaction list', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  async function setup() {
    t = await createTestApp();
    const other = await seedMerchant(t.deps, 1, 'Other Shop');
    await addOperator(t.deps);
    await addMerchantUser(t.deps, [t.merchant.id]);
    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    const shop = new ConsoleClient(t.app);
    await shop.logIn('shop@example.test');
    return { other: other.merchant.id, ops, shop };
  }

  // 'sends a logged-out visitor to the login form, for the list, the export and a detail' moved to route-common.test.ts.

  it('lists newest first with links to each; a merchant user sees only its merchant, without a merchant filter', async () => {
    const { other, ops, shop } = await setup();
    const now = t.clock.now();
    const mine = [
      transactionRow(t.merchant.id, now - 3000, { ref: 'order-1' }),
      transactionRow(t.merchant.id, now - 1000, { ref: 'order-2' }),
    ];
    const theirs = [transactionRow(other, now - 2000, { ref: 'their-order' })];
    await insertRows(t.deps, [...mine, ...theirs]);

    const all = await ops.get('/dashboard/transactions');
    expect(all.statusCode).toBe(200);
    expect(all.body).toContain('<label for="tx-q">Search</label>');
    expect(listed(all.body)).toEqual([mine[1]!.id, theirs[0]!.id, mine[0]!.id]);
    expect(all.body).toContain('<label for="tx-merchant">Merchant</label>');
    expect(all.body).toContain('Other Shop');
    expect(all.body).toContain('href="/dashboard/transactions.csv"');
    expect(all.body).toContain('>Export CSV</a>');

    const own = await shop.get('/dashboard/transactions');
    expect(listed(own.body)).toEqual([mine[1]!.id, mine[0]!.id]);
    expect(own.body).not.toContain('their-order');
    expect(own.body).not.toContain('tx-merchant');
    // Naming the other merchant in the filter is answered as an unknown merchant: a 404 page.
    const foreign = await shop.get(`/dashboard/transactions?merchant=${other}`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).not.toContain('their-order');
    expect((await ops.get('/dashboard/transactions?merchant=mch_nosuchmerchant')).statusCode).toBe(404);
    const filtered = await ops.get(`/dashboard/transactions?merchant=${other}`);
    expect(listed(filtered.body)).toEqual([theirs[0]!.id]);
  });

  it('filters by status as a reader sees it, by mode, and by WIB days', async () => {
    const { ops } = await setup();
    const now = t.clock.now();
    const m = t.merchant.id;
    const open = transactionRow(m, now - 60_000);
    const overdue = transactionRow(m, now - 20 * 60_000); // pending in the row, past its expiry
    const expired = transactionRow(m, now - 30 * 60_000, { status: 'expired' });
    const paid = transactionRow(m, now - 40 * 60_000, { status: 'paid', paid_at: now - 39 * 60_000 });
    const cancelled = transactionRow(m, now - 50 * 60_000, { status: 'cancelled', cancelled_at: now - 49 * 60_000 });
    const live = transactionRow(m, now - 70 * 60_000, { mode: 'live', status: 'paid', paid_at: now - 69 * 60_000 });
    await insertRows(t.deps, [open, overdue, expired, paid, cancelled, live]);

    const ids = async (qs: string) => listed((await ops.get(`/dashboard/transactions?${qs}`)).body);
    expect(await ids('status=pending')).toEqual([open.id]);
    expect(await ids('status=expired')).toEqual([overdue.id, expired.id]);
    expect(await ids('status=paid')).toEqual([paid.id, live.id]);
    expect(await ids('status=cancelled')).toEqual([cancelled.id]);
    expect(await ids('status=paid&mode=live')).toEqual([live.id]);
    expect(await ids('mode=test')).toEqual([open.id, overdue.id, expired.id, paid.id, cancelled.id]);
    // The overdue row shows as expired in the list too.
    const page = (await ops.get('/dashboard/transactions?status=expired')).body;
    expect(page.match(/<span class="badge expired">Expired<\/span>/g)).toHaveLength(2);

    // WIB days: 10 May 2024 runs from 9 May 17:00 UTC to 10 May 17:00 UTC.
    const at = (iso: string) => Date.parse(iso);
    const before = transactionRow(m, at('2024-05-09T16:59:59.999Z'));
    const first = transactionRow(m, at('2024-05-09T17:00:00.000Z'));
    const last = transactionRow(m, at('2024-05-10T16:59:59.999Z'));
    const after = transactionRow(m, at('2024-05-10T17:00:00.000Z'));
    await insertRows(t.deps, [before, first, last, after]);
    expect(await ids('from=2024-05-10&to=2024-05-10')).toEqual([last.id, first.id]);
    expect(await ids('from=2024-05-10&to=2024-05-11')).toEqual([after.id, last.id, first.id]);
    expect(await ids('to=2024-05-09')).toEqual([before.id]);
  });

  it('searches by trxid, ref, e-mail and total amount, taking wildcards literally', async () => {
    const { ops } = await setup();
    const now = t.clock.now();
    const m = t.merchant.id;
    const a = transactionRow(m, now - 5000, { ref: 'INV-2024-0042', email: 'Budi@Example.id', total_amount: 10_123 });
    const b = transactionRow(m, now - 4000, { ref: 'inv_100%', email: 'sari@example.id', total_amount: 25_000 });
    const c = transactionRow(m, now - 3000, { ref: null, email: null, total_amount: 10_124 });
    await insertRows(t.deps, [a, b, c]);
    const search = async (q: string) =>
      listed((await ops.get(`/dashboard/transactions?q=${encodeURIComponent(q)}`)).body);
    expect(await search(c.id)).toEqual([c.id]);
    expect(await search('inv-2024')).toEqual([a.id]);
    expect(await search('INV')).toEqual([b.id, a.id]);
    expect(await search('budi@example')).toEqual([a.id]);
    expect(await search('10123')).toEqual([a.id]);
    expect(await search('Rp 10.123')).toEqual([a.id]);
    expect(await search('Rp10.124,00')).toEqual([c.id]);
    expect(await search('%')).toEqual([b.id]);
    expect(await search('_')).toEqual([b.id]);
    expect(await search('nothing-like-this')).toEqual([]);
    // The search is kept in the form and in the export link.
    const page = (await ops.get('/dashboard/transactions?q=inv-2024&status=pending')).body;
    expect(page).toContain('value="inv-2024"');
    expect(page).toContain('href="/dashboard/transactions.csv?q=inv-2024&amp;status=pending"');
  });

  it('says what is wrong with a filter, with a 400', async () => {
    const { ops } = await setup();
    const bad = await ops.get('/dashboard/transactions?status=lost&from=2024-02-30&q=ok');
    expect(bad.statusCode).toBe(400);
    expect(alerts(bad.body)).toEqual(['Choose a status from the list.', 'The start date is not a date (YYYY-MM-DD).']);
    const range = await ops.get('/dashboard/transactions?from=2024-05-11&to=2024-05-10');
    expect(range.statusCode).toBe(400);
    expect(alerts(range.body)).toEqual(['The start date is after the end date.']);
    expect(range.body).toContain('aria-invalid="true"');
    const id = await ops.get('/dashboard/transactions?mode=prod', { 'accept-language': 'id' });
    expect(alerts(id.body)).toEqual(['Pilih uji atau produksi.']);
    // A page link that this console did not make.
    const stale = await ops.get('/dashboard/transactions?status=paid&older=not-a-cursor');
    expect(stale.statusCode).toBe(400);
    expect(alerts(stale.body)).toEqual([
      'This page link is not valid. Apply the filters again to start from the newest.',
    ]);
    expect(stale.body).toContain('<option value="paid" selected>');
  });

  it('pages 50 at a time by an opaque cursor, older and newer, each row once, across merchants and modes', async () => {
    const { ops, other } = await setup();
    const now = t.clock.now();
    // Many rows share a creation time, across merchants and modes: the cursor's id breaks the ties.
    const rows = Array.from({ length: 120 }, (_, i) =>
      transactionRow(i % 3 === 0 ? other : t.merchant.id, now - 100_000 + Math.floor(i / 7) * 1000, {
        mode: i % 2 === 0 ? 'live' : 'test',
      }),
    );
    await insertRows(t.deps, rows);
    const newestFirst = [...rows]
      .sort((x, y) => y.created_at - x.created_at || (y.id < x.id ? -1 : 1))
      .map((r) => r.id);

    const p1 = await ops.get('/dashboard/transactions');
    expect(listed(p1.body)).toEqual(newestFirst.slice(0, 50));
    expect(link(p1.body, 'prev')).toBeNull();
    const p2 = await ops.get(link(p1.body, 'next')!);
    expect(listed(p2.body)).toEqual(newestFirst.slice(50, 100));
    const p3 = await ops.get(link(p2.body, 'next')!);
    expect(listed(p3.body)).toEqual(newestFirst.slice(100));
    expect(link(p3.body, 'next')).toBeNull();
    const back2 = await ops.get(link(p3.body, 'prev')!);
    expect(listed(back2.body)).toEqual(newestFirst.slice(50, 100));
    const back1 = await ops.get(link(back2.body, 'prev')!);
    expect(listed(back1.body)).toEqual(newestFirst.slice(0, 50));
    expect(link(back1.body, 'prev')).toBeNull();
    expect(link(p1.body, 'next')).toMatch(/^\/dashboard\/transactions\?older=[A-Za-z0-9_-]+$/);
  });
});

describe('console transaction CSV export', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('escapes quotes, commas and line breaks, and keeps formulas from running', async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    const now = t.clock.now();
    const m = t.merchant.id;
    const refs = [
      '=HYPERLINK("http://evil.example","x")',
      '+1+2',
      '-3',
      '@SUM(A1)',
      '\tTab',
      '\rCR',
      'a,b',
      'say "hi"',
      'two\nlines',
      'plain',
    ];
    const rows = refs.map((ref, i) =>
      transactionRow(m, now - 10_000 + i, { ref, email: i === 0 ? '=cmd@example.id' : null }),
    );
    const paid = transactionRow(m, now - 20_000, {
      status: 'paid',
      paid_at: now - 19_000,
      paid_late: 1,
      ref: 'paid-one',
    });
    await insertRows(t.deps, [...rows, paid]);
    // Paid with an accepted difference of Rp100 short (issue 28, section 2).
    await t.deps.db
      .updateTable('transactions')
      .set({ amount_paid: paid.total_amount - 100, underpaid: 100 })
      .where('id', '=', paid.id)
      .execute();

    const res = await ops.get('/dashboard/transactions.csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="transactions-\d{4}-\d{2}-\d{2}\.csv"$/);
    const records = parseCsv(res.body);
    // The header is the page's own column list; the positional reads below still pin where the columns stand.
    expect(records[0]).toEqual([...CSV_COLUMNS]);
    const byRef = new Map(records.slice(1).map((r) => [r[0]!, r]));
    const refOf = (row: TransactionsTable) => byRef.get(row.id)![8];
    expect(refs.map((_, i) => refOf(rows[i]!))).toEqual([
      `'=HYPERLINK("http://evil.example","x")`,
      "'+1+2",
      "'-3",
      "'@SUM(A1)",
      "'\tTab",
      "'\rCR",
      'a,b',
      'say "hi"',
      'two\nlines',
      'plain',
    ]);
    expect(byRef.get(rows[0]!.id)![9]).toBe("'=cmd@example.id");
    // The raw text: a quote is doubled inside a quoted cell, and a formula never starts a cell.
    expect(res.body).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(res.body).not.toMatch(/(^|,)[=+\-@]/m);
    const p = byRef.get(paid.id)!;
    expect(p.slice(3, 8)).toEqual(['paid', '10000', String(paid.unique_code), String(paid.total_amount), 'IDR']);
    expect(p[10]).toBe(new Date(paid.created_at).toISOString());
    expect(p[12]).toBe(new Date(paid.paid_at!).toISOString());
    expect(p[13]).toBe('true');
    const column = (name: (typeof CSV_COLUMNS)[number]) => CSV_COLUMNS.indexOf(name);
    expect([p[column('amount_paid')], p[column('underpaid')], p[column('overpaid')]]).toEqual([
      String(paid.total_amount - 100),
      '100',
      '0',
    ]);
    expect(byRef.get(rows[0]!.id)![column('amount_paid')]).toBe('0');
  });

  it('exports exactly the filtered rows; a merchant user gets its own merchant only', async () => {
    t = await createTestApp();
    const other = (await seedMerchant(t.deps, 1, 'Other Shop')).merchant.id;
    await addOperator(t.deps);
    await addMerchantUser(t.deps, [t.merchant.id]);
    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    const shop = new ConsoleClient(t.app);
    await shop.logIn('shop@example.test');
    const now = t.clock.now();
    const mine = transactionRow(t.merchant.id, now - 3000, { ref: 'shop-a' });
    const minePaid = transactionRow(t.merchant.id, now - 2000, { ref: 'shop-b', status: 'paid', paid_at: now - 1000 });
    const theirs = transactionRow(other, now - 1000, { ref: 'other-a' });
    await insertRows(t.deps, [mine, minePaid, theirs]);
    const ids = (body: string) =>
      parseCsv(body)
        .slice(1)
        .map((r) => r[0]);

    expect(ids((await ops.get('/dashboard/transactions.csv')).body)).toEqual([theirs.id, minePaid.id, mine.id]);
    expect(ids((await ops.get('/dashboard/transactions.csv?status=paid')).body)).toEqual([minePaid.id]);
    expect(ids((await ops.get('/dashboard/transactions.csv?q=shop-')).body)).toEqual([minePaid.id, mine.id]);
    const own = await shop.get('/dashboard/transactions.csv');
    expect(ids(own.body)).toEqual([minePaid.id, mine.id]);
    expect(own.body).not.toContain('other-a');
    expect((await shop.get(`/dashboard/transactions.csv?merchant=${other}`)).statusCode).toBe(404);
    // Filters that do not parse go back to the list, which says why.
    const bad = await ops.get('/dashboard/transactions.csv?status=lost');
    expect(bad.statusCode).toBe(303);
    expect(bad.headers.location).toBe('/dashboard/transactions?status=lost');
  });

  it('streams 1200 rows read 500 at a time, each exactly once and in order', async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    const now = t.clock.now();
    const other = (await seedMerchant(t.deps, 1, 'Other Shop')).merchant.id;
    // Two merchants, both modes. Rows share a creation time across both page boundaries (the 500th and
    // 1000th newest) and, in the smaller pages below, across the chunks each stream is read in.
    const at = (i: number) => (i >= 600 && i <= 799 ? 700 : i >= 190 && i <= 210 ? 200 : i);
    const rows = Array.from({ length: 1200 }, (_, i) =>
      transactionRow(i % 2 === 0 ? other : t.merchant.id, now - 2_000_000 + at(i) * 1000, {
        ref: `r-${i}`,
        mode: i % 3 === 0 ? 'live' : 'test',
      }),
    );
    await insertRows(t.deps, rows);
    const expected = [...rows].sort((x, y) => y.created_at - x.created_at || (y.id < x.id ? -1 : 1)).map((r) => r.id);

    const res = await ops.get('/dashboard/transactions.csv');
    expect(res.statusCode).toBe(200);
    // Streamed: no length known up front.
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['transfer-encoding']).toBe('chunked');
    const got = parseCsv(res.body)
      .slice(1)
      .map((r) => r[0]!);
    expect(got).toHaveLength(1200);
    expect(new Set(got).size).toBe(1200);
    expect(got).toEqual(expected);

    // The service behind it reads in pages of 500.
    const viewer = {
      userId: 'u',
      email: 'ops@example.test',
      role: 'operator' as const,
      merchantIds: [],
      sessionKey: 'k',
      actor: { kind: 'user' as const, email: 'ops@example.test' },
    };
    const { pages } = await exportTransactions(t.deps, viewer, parseTransactionFilters({}).filters);
    const sizes: number[] = [];
    for await (const page of pages) sizes.push(page.length);
    expect(sizes).toEqual([500, 500, 200]);
    const small = await exportTransactions(t.deps, viewer, parseTransactionFilters({}).filters, 50);
    const inSmallPages: string[] = [];
    for await (const page of small.pages) inSmallPages.push(...page.map((r) => r.transaction.id));
    expect(inSmallPages).toEqual(expected);
  });
});
