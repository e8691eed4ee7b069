import { afterEach, describe, expect, it } from 'vitest';
import { createTestContext, onPostgres, type TestContext } from '../helpers/context.js';

const waitFor = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return cond();
};

describe('status bus', () => {
  let t: TestContext | null = null;
  const stops: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    await t?.close();
    t = null;
  });

  it('announces a change only when its database transaction commits', async () => {
    t = await createTestContext();
    if (onPostgres) {
      // As another instance would: its own connection, hearing NOTIFY.
      stops.push(t.deps.state.statusBus.listen(t.databaseUrl, t.deps.logger));
      await new Promise((r) => setTimeout(r, 300));
    }
    const heard: string[] = [];
    stops.push(t.deps.state.statusBus.onChange('trx_committed', () => heard.push('trx_committed')));
    stops.push(t.deps.state.statusBus.onChange('trx_rolled_back', () => heard.push('trx_rolled_back')));

    await t.deps.db.runInTransaction(async (trx) => {
      await t!.deps.state.statusBus.announce(trx, 'trx_committed');
    });
    await t.deps.db
      .runInTransaction(async (trx) => {
        await t!.deps.state.statusBus.announce(trx, 'trx_rolled_back');
        throw new Error('roll back');
      })
      .catch(() => {});

    expect(await waitFor(() => heard.includes('trx_committed'))).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    // SQLite announces in-process and cannot know of a rollback; PostgreSQL's NOTIFY is transactional.
    if (onPostgres) expect(heard).toEqual(['trx_committed']);
  });
});
