import { describe, expect, it } from 'vitest';
import type { AppError } from '../../../src/domain/errors.js';
import { forgetOldLogins } from '../../../src/services/users/forget-old-logins.js';
import { logIn } from '../../../src/services/users/log-in.js';
import { addUser } from '../../../src/services/users/add-user.js';
import { resumeSession } from '../../../src/services/users/resume-session.js';
import { useSeededContext } from '../../helpers/context.js';
import { PASSWORD, TEST_ACTOR } from '../../helpers/console.js';

describe('console users, concurrently', () => {
  const h = useSeededContext();

  it('of 8 simultaneous adds of one address exactly one succeeds; the rest are user_exists', async () => {
    await h.setup();
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        addUser(
          h.ctx.deps,
          { email: i % 2 ? 'Same@Example.test' : 'same@example.test', password: PASSWORD, role: 'operator' },
          TEST_ACTOR,
        ),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('user_exists');
    expect(await h.ctx.deps.db.selectFrom('users').select('id').execute()).toHaveLength(1);
  });

  // issue 23, finding 3: each attempt is counted before its password is checked, so of 12 at once the
  // account's allowance (5 free and the one that starts the wait) is checked and the rest wait uncounted.
  it('counts 12 simultaneous failed logins before checking them: 6 checked, 6 refused', async () => {
    await h.setup();
    await addUser(h.ctx.deps, { email: 'ops@example.test', password: PASSWORD, role: 'operator' }, TEST_ACTOR);
    const attempts = await Promise.allSettled(
      Array.from({ length: 12 }, () =>
        logIn(h.ctx.deps, {
          email: 'ops@example.test',
          password: 'wrong guess!',
          clientAddress: '192.0.2.7',
          userAgent: null,
        }),
      ),
    );
    const codes = attempts.map((a) => (a.status === 'rejected' ? (a.reason as { code: string }).code : 'logged in'));
    expect(codes.filter((c) => c === 'login_failed')).toHaveLength(6);
    expect(codes.filter((c) => c === 'login_throttled')).toHaveLength(6);
    const rows = await h.ctx.deps.db.selectFrom('login_throttles').selectAll().orderBy('key').execute();
    expect(rows.map((r) => [r.key.split(':')[0], r.failures])).toEqual([
      ['account', 6],
      ['address', 6],
    ]);
    // 6 failures on the account: 5 free, then 1 s.
    const account = rows.find((r) => r.key.startsWith('account:'))!;
    expect(account.blocked_until - h.ctx.clock.ms).toBe(1000);
  });

  it('two logins give two sessions; a session id never found twice; housekeeping forgets what is long over', async () => {
    await h.setup();
    await addUser(h.ctx.deps, { email: 'ops@example.test', password: PASSWORD, role: 'operator' }, TEST_ACTOR);
    const input = { email: 'ops@example.test', password: PASSWORD, clientAddress: '192.0.2.8', userAgent: 'test' };
    const [a, b] = await Promise.all([logIn(h.ctx.deps, input), logIn(h.ctx.deps, input)]);
    expect(a.sessionId).not.toBe(b.sessionId);
    expect((await resumeSession(h.ctx.deps, a.sessionId))?.email).toBe('ops@example.test');
    expect(await resumeSession(h.ctx.deps, 'not-a-session')).toBeNull();
    // One character changed (to another one: 1 id in 64 already ends in A).
    const altered = `${a.sessionId.slice(0, -1)}${a.sessionId.endsWith('A') ? 'B' : 'A'}`;
    expect(await resumeSession(h.ctx.deps, altered)).toBeNull();
    await logIn(h.ctx.deps, { ...input, password: 'wrong guess!' }).catch(() => {});
    h.ctx.clock.advance(h.ctx.deps.config.sessionMaxHours * 3600_000 + 8 * 86_400_000);
    expect(await forgetOldLogins(h.ctx.deps)).toEqual({ sessions: 2, throttles: 2 });
    expect(await resumeSession(h.ctx.deps, a.sessionId)).toBeNull();
  });
});
