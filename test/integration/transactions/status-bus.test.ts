import { afterEach, describe, expect, it } from 'vitest';
import { createTestContext, onPostgres, type TestContext } from '../../helpers/context.js';

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
      // Its LISTEN is in place once onListening runs: announcements from then on are heard.
      const listening = new Promise<void>((resolve) =>
        stops.push(t!.deps.state.statusBus.listen(t!.databaseUrl, t!.deps.logger, resolve)),
      );
      await listening;
    }
    const heard: string[] = [];
    let committedHeard!: () => void;
    const committed = new Promise<void>((resolve) => (committedHeard = resolve));
    stops.push(
      t.deps.state.statusBus.onChange('trx_committed', () => {
        heard.push('trx_committed');
        committedHeard();
      }),
    );
    stops.push(t.deps.state.statusBus.onChange('trx_rolled_back', () => heard.push('trx_rolled_back')));

    // The rolled-back announcement first, the committed one after it: PostgreSQL delivers notifications in
    // the order their transactions commit, on the one listening connection, so once the second is heard
    // the first would have been heard already, had it been sent. No wait for "nothing" is needed.
    await t.deps.db
      .runInTransaction(async (trx) => {
        await t!.deps.state.statusBus.announce(trx, 'trx_rolled_back');
        throw new Error('roll back');
      })
      .catch(() => {});
    await t.deps.db.runInTransaction(async (trx) => {
      await t!.deps.state.statusBus.announce(trx, 'trx_committed');
    });

    await committed;
    // SQLite announces in-process and cannot know of a rollback (both are heard, in order); PostgreSQL's
    // NOTIFY is transactional.
    expect(heard).toEqual(onPostgres ? ['trx_committed'] : ['trx_rolled_back', 'trx_committed']);
  });
});
