// issue 24, item 4: the text each kind of actor is stored as in audit_log.actor, unchanged by the typed Actor.
import { describe, expect, it } from 'vitest';
import { actorText, apiKeyActor, SIGNUP_ACTOR, SYSTEM_ACTOR, userActor } from '../../src/domain/actor.js';

describe('audit actor', () => {
  it('is stored as the same text as before it was typed', () => {
    expect(actorText(userActor({ email: 'ops@example.test' }))).toBe('user:ops@example.test');
    expect(actorText({ kind: 'cli', operator: 'alice' })).toBe('alice');
    expect(actorText(SIGNUP_ACTOR)).toBe('signup');
    expect(actorText(SYSTEM_ACTOR)).toBe('system');
    // A refund asked through the API names the key by its id, never its secret.
    expect(actorText(apiKeyActor('key_abc'))).toBe('api_key:key_abc');
  });

  it('names a user by e-mail only, whatever else the row or viewer carries', () => {
    const viewer = { userId: 'usr_1', email: 'shop@example.test', role: 'merchant' };
    expect(userActor(viewer)).toEqual({ kind: 'user', email: 'shop@example.test' });
  });
});
