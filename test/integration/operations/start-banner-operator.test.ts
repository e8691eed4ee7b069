// issue 37, section 8: a start's banner says how to make the first operator while the console has none,
// and stops saying it once one exists (a real serve on a real SQLite file, started twice).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../../src/domain/actor.js';
import { loadConfig } from '../../../src/config.js';
import { serve } from '../../../src/server.js';
import { addUser } from '../../../src/services/users/add-user.js';

const dir = mkdtempSync(join(tmpdir(), 'qg-banner-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function startAndStop(): Promise<string> {
  const printed: string[] = [];
  const config = loadConfig({
    DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`,
    PORT: '0',
    DEMO_MERCHANT: 'true',
    CONSOLE: 'true',
  });
  const server = await serve(config, {
    role: 'api',
    logger: pino({ level: 'silent' }),
    print: (text) => void printed.push(text),
  });
  try {
    if (printed.join('').includes('user add'))
      await addUser(
        server.runtime.deps,
        { email: 'first@example.test', role: 'operator', password: 'a long enough secret' },
        SYSTEM_ACTOR,
      );
  } finally {
    await server.stop();
  }
  return printed.join('');
}

describe('the start banner and the first operator', () => {
  it('says how to make one until one exists', async () => {
    const first = await startAndStop();
    expect(first).toContain('user add --email you@example.com --role operator');
    const later = await startAndStop();
    expect(later).toContain('/dashboard');
    expect(later).not.toContain('user add');
  });
});
