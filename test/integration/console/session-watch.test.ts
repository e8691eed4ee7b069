// The session watch (issue 35, finding 5) on both databases, its checks run by hand: which sessions end
// what is open on them, in how many statements, and what a failed check does.
import { afterEach, describe, expect, it } from 'vitest';
import { hashSessionId } from '../../../src/domain/console-session.js';
import type { Viewer } from '../../../src/domain/viewer.js';
import { addUser } from '../../../src/services/users/add-user.js';
import { endViewerSession } from '../../../src/services/users/end-viewer-session.js';
import { startSessionWatch, type SessionWatch } from '../../../src/services/users/session-watch.js';
import { setUserEnabled } from '../../../src/services/users/set-user-enabled.js';
import { startSession } from '../../../src/services/users/start-session.js';
import { userById } from '../../../src/storage/queries/users.js';
import { PASSWORD, TEST_ACTOR } from '../../helpers/console.js';
import { countStatements } from '../../helpers/count-statements.js';
import { createTestContext, type TestContext } from '../../helpers/context.js';

describe('the session watch', () => {
  let t: TestContext | null = null;
  let watch: SessionWatch | null = null;
  afterEach(async () => {
    watch?.stop();
    await t?.close();
    t = null;
  });

  async function session(email: string): Promise<{ key: string; viewer: Viewer }> {
    const user = await addUser(t!.deps, { email, password: PASSWORD, role: 'operator' }, TEST_ACTOR);
    const row = (await userById(t!.deps.db, user.id))!;
    const id = await startSession(t!.deps, row, { clientAddress: '127.0.0.1', userAgent: null }, 'user.login');
    const key = hashSessionId(id);
    return {
      key,
      viewer: {
        userId: user.id,
        email,
        role: 'operator',
        merchantIds: [],
        sessionKey: key,
        actor: { kind: 'user' as const, email: email },
      },
    };
  }

  it('ends what a session holds once it is logged out, its user disabled or its absolute end passed; not for idleness', async () => {
    t = await createTestContext({ SESSION_MAX_HOURS: '2' });
    // Checked by hand only: the timer's interval is far beyond the test.
    watch = startSessionWatch(t.deps, 60_000);
    const stays = await session('stays@example.test');
    const disabled = await session('disabled@example.test');
    const loggedOut = await session('out@example.test');
    const ended: string[] = [];
    for (const [name, s] of Object.entries({ stays, disabled, loggedOut })) watch.watch(s.key, () => ended.push(name));
    // A second stream of one session is told too; one unwatched is not.
    watch.watch(disabled.key, () => ended.push('disabled, second stream'));
    watch.watch(stays.key, () => ended.push('stays, unwatched'))();
    expect(watch.size).toBe(4);

    // An hour without a page view is past the idle limit (30 minutes), but an open stream is someone there.
    t.clock.advance(3600_000);
    await watch.check();
    expect(ended).toEqual([]);

    await setUserEnabled(t.deps, disabled.viewer.userId, false, TEST_ACTOR);
    await endViewerSession(t.deps, loggedOut.viewer);
    await watch.check();
    expect(ended.sort()).toEqual(['disabled', 'disabled, second stream', 'loggedOut']);
    expect(watch.size).toBe(1);

    // Past the session's absolute end (SESSION_MAX_HOURS after its login).
    t.clock.advance(3600_000);
    await watch.check();
    expect(ended).toContain('stays');
    expect(watch.size).toBe(0);
  });

  it('reads every watched session in one statement per 500, and ends them all when the read fails', async () => {
    t = await createTestContext();
    watch = startSessionWatch(t.deps, 60_000);
    const real = await session('real@example.test');
    const ended: string[] = [];
    watch.watch(real.key, () => ended.push('real'));
    // Sessions unknown to the database (a deleted row) end at once; there are enough of them for two reads.
    for (let i = 0; i < 600; i++) watch.watch(hashSessionId(`gone-${i}`.padEnd(43, 'x')), () => ended.push('gone'));
    const statements = countStatements(t.deps.db);
    await watch.check();
    expect(statements.count).toBe(2);
    expect(ended.length).toBe(600);
    expect(ended).not.toContain('real');
    expect(watch.size).toBe(1);

    // A check that cannot read ends what it cannot vouch for.
    await t.database.close();
    await watch.check();
    expect(ended).toContain('real');
    expect(watch.size).toBe(0);
  });
});
