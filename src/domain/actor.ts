// Who did something, for the audit log. Typed, so every place that records an action names its actor
// the same way, and the text stored in audit_log.actor comes from one function.

export type Actor =
  /** A console user: always by e-mail address, so one person has one name in the log. */
  | { kind: 'user'; email: string }
  /** The CLI, as the operator running it (QRIS_OPERATOR or the OS account). */
  | { kind: 'cli'; operator: string }
  /** A merchant's program, by the id of the API key it called with (never the secret). */
  | { kind: 'api_key'; keyId: string }
  /** A self-service sign-up: nobody is logged in yet. */
  | { kind: 'signup' }
  /** The gateway itself, or a caller that names no one. */
  | { kind: 'system' };

/** The actor of a console user's action; the one way to make one. */
export function userActor(user: { email: string }): Actor {
  return { kind: 'user', email: user.email };
}

/** The actor of a call made with an API key. */
export function apiKeyActor(keyId: string): Actor {
  return { kind: 'api_key', keyId };
}

export const SYSTEM_ACTOR: Actor = { kind: 'system' };
export const SIGNUP_ACTOR: Actor = { kind: 'signup' };

/** The text stored in audit_log.actor (and shown and filtered on in the console's audit page). */
export function actorText(actor: Actor): string {
  switch (actor.kind) {
    case 'user':
      return `user:${actor.email}`;
    case 'cli':
      return actor.operator;
    case 'api_key':
      return `api_key:${actor.keyId}`;
    case 'signup':
      return 'signup';
    case 'system':
      return 'system';
  }
}
