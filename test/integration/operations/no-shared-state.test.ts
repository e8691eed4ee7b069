// Issue 24, item 6: two gateways in one process share nothing. Each has its own Deps on its own
// database; what one remembers (a parsed static QRIS, a SNAP lookup or token, a status announcement,
// PostgreSQL statement names) is not seen by the other.
import { afterEach, describe, expect, it } from 'vitest';
import { snapCaches } from '../../../src/payment-sources/snap/caches.js';
import { snapSourceFor } from '../../../src/payment-sources/snap/sources.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { statementNameOf } from '../../../src/storage/engine/statement-names.js';
import { createInput, createTestContext, onPostgres, seedMerchant, type TestContext } from '../../helpers/context.js';

describe('two gateways in one process', () => {
  const opened: TestContext[] = [];
  afterEach(async () => {
    for (const t of opened.splice(0)) await t.close();
  });
  const two = async (): Promise<[TestContext, TestContext]> => {
    const a = await createTestContext();
    opened.push(a);
    const b = await createTestContext();
    opened.push(b);
    return [a, b];
  };

  it('keep their own parsed static QRIS codes', async () => {
    const [a, b] = await two();
    const { merchant } = await seedMerchant(a.deps);
    await createTransaction(a.deps, createInput(merchant.id, 10_000));
    expect(a.deps.state.staticCodes.has(merchant.id)).toBe(true);
    expect(b.deps.state.staticCodes.size).toBe(0);
  });

  it('keep their own SNAP lookups and tokens', async () => {
    const [a, b] = await two();
    const { merchant } = await seedMerchant(a.deps);
    expect(await snapSourceFor(a.deps, merchant.id, 'test')).toBeNull();
    expect(snapCaches(a.deps).byMerchant.has(merchant.id)).toBe(true);
    expect(snapCaches(b.deps).byMerchant.size).toBe(0);
    snapCaches(a.deps).tokens.set('src_1', { key: 'k', token: 't', refreshAt: Date.now() + 60_000 });
    expect(snapCaches(b.deps).tokens.has('src_1')).toBe(false);
    // The same gateway gets the same caches back on every call.
    expect(snapCaches(a.deps)).toBe(snapCaches(a.deps));
  });

  it("do not hear each other's status announcements", async () => {
    const [a, b] = await two();
    const heard: string[] = [];
    const stopA = a.deps.state.statusBus.onChange('trx_x', () => heard.push('a'));
    const stopB = b.deps.state.statusBus.onChange('trx_x', () => heard.push('b'));
    await b.deps.db.runInTransaction((trx) => b.deps.state.statusBus.announce(trx, 'trx_x'));
    await new Promise((r) => setTimeout(r, 50));
    stopA();
    stopB();
    // SQLite announces within the gateway; PostgreSQL's NOTIFY reaches only those that LISTEN (none here).
    expect(heard).toEqual(onPostgres ? [] : ['b']);
  });

  it.skipIf(!onPostgres)('name statements by their text, each database with its own names', async () => {
    const [a, b] = await two();
    const names = [a.database.statementNames, b.database.statementNames];
    expect(names[0]).not.toBeNull();
    expect(names[0]).not.toBe(names[1]);
    const x = 'select * from "payments" where "id" = $1 and 1 = 1';
    const y = 'select * from "merchants" where "id" = $1 and 1 = 1';
    // Seen in opposite orders, the texts still get the same names: a name depends on nothing but its text.
    expect([names[0]!.name(x, 1), names[0]!.name(y, 1)]).toEqual([statementNameOf(x), statementNameOf(y)]);
    expect([names[1]!.name(y, 1), names[1]!.name(x, 1)]).toEqual([statementNameOf(y), statementNameOf(x)]);
  });
});
