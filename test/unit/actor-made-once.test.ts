// Who did something is made once per request, where the request's identity is found, and passed in:
// the console's viewer carries its actor (resume-session.ts), an API key's principal carries its own
// (authenticate-api-key.ts), the CLI makes the operator's once (cli-actor.ts, used by its context). Every
// other place that names an actor takes it from there. A few steps act for a person who is not (yet) a
// viewer: a login, a sign-up's e-mail check, a password reset, an invitation accepted, an account deleted,
// a sale recorded by the cashier it names. This scan keeps the list of places that make one short.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, sourceFiles } from '../helpers/source-files.js';

const ROOT = REPO_ROOT;

/** The files that may make an actor, each with why. */
const MAKERS: Record<string, string> = {
  'src/domain/actor.ts': 'where an actor is defined',
  'src/services/users/resume-session.ts': "the console's viewer, once per request",
  'src/services/merchants/authenticate-api-key.ts': "an API key's principal, once per lookup (cached with it)",
  'src/cli/cli-actor.ts': "the CLI's operator",
  'src/cli/main.ts': "the CLI context's actor(), once per command",
  'src/services/users/start-session.ts': 'a login: the user is not a viewer until it succeeds',
  'src/services/users/verify-email.ts': "a sign-up's e-mail check, by its mailed link",
  'src/services/users/reset-password.ts': 'a password reset, by its mailed link',
  'src/services/users/accept-invite.ts': 'an invitation accepted, by its mailed link',
  'src/services/users/delete-account.ts': 'an account deleted: named as the user it was',
  'src/services/transactions/insert-transaction.ts':
    'a sale at the point of sale, named as the cashier the sale records',
};

describe('an actor is made once per request', () => {
  it('only the listed files make one (userActor, apiKeyActor, cliActor or a { kind } literal)', () => {
    const makers = sourceFiles('src').filter((file) =>
      /\b(userActor|apiKeyActor|cliActor)\(|kind: '(user|api_key|cli)'/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(makers.filter((file) => !(file in MAKERS))).toEqual([]);
  });

  it('every listed file still makes one', () => {
    for (const file of Object.keys(MAKERS)) {
      expect(
        /\b(userActor|apiKeyActor|cliActor)\(|kind: '(user|api_key|cli)'/.test(readFileSync(join(ROOT, file), 'utf8')),
        file,
      ).toBe(true);
    }
  });
});
