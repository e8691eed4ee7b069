// issue 26, item 2: the banner every start prints names the database's kind and place, never a password,
// and leaves the console out when it is off. (A real process prints it: cli-process.test.ts.)
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeDatabase, startBanner, workerBanner } from '../../src/start-banner.js';

describe('the start banner', () => {
  it('describes the database without its credentials', () => {
    expect(describeDatabase('sqlite:./data/x.db')).toBe(`SQLite, ${resolve('data/x.db')}`);
    expect(describeDatabase('sqlite::memory:')).toBe('SQLite, in memory');
    const pg = describeDatabase('postgres://gateway:s3cret%40pw@db.internal:6543/payments?sslmode=require');
    expect(pg).toBe('PostgreSQL, db.internal:6543/payments');
    expect(describeDatabase('postgresql://user:pw@db.internal')).toBe(
      'PostgreSQL, db.internal:5432/(default database)',
    );
  });

  it('leaves the console out when it is off, and tells how to replace a key it cannot show', () => {
    const text = startBanner({
      url: 'http://127.0.0.1:3000',
      consoleEnabled: false,
      databaseUrl: 'postgres://u:pw@h/db',
      demo: { merchantId: 'mch_x', key: null },
      cli: 'qris-gateway',
      operatorExists: false,
    });
    expect(text).toBe(
      [
        '',
        'qris-gateway is running at http://127.0.0.1:3000',
        '  API docs:  http://127.0.0.1:3000/docs',
        '  Database:  PostgreSQL, h:5432/db',
        '',
        'Sandbox merchant mch_x: its test key was shown on the first start. Key not saved? Make another:',
        '  qris-gateway key create --merchant mch_x --mode test',
        '',
      ].join('\n'),
    );
    // No sandbox merchant: not a quick start, so no console how-to either.
    const plain = startBanner({
      url: 'http://h:1',
      consoleEnabled: true,
      databaseUrl: 'sqlite:/tmp/a.db',
      demo: null,
      cli: 'x',
      operatorExists: false,
    });
    expect(plain).not.toMatch(/key/i);
    expect(plain).not.toContain('user add');
    expect(workerBanner('postgres://u:pw@h/db')).toContain('  Database:  PostgreSQL, h:5432/db\n');
    expect(workerBanner('postgres://u:pw@h/db')).not.toContain('pw');
  });

  // issue 26, item 21: a quick start names the console and the command that makes its first operator.
  it('tells a quick start where the console is and how to make an operator for it', () => {
    const facts = {
      url: 'http://127.0.0.1:3000',
      databaseUrl: 'sqlite::memory:',
      cli: 'npm run -s cli --',
      operatorExists: false,
    };
    const first = startBanner({ ...facts, consoleEnabled: true, demo: { merchantId: 'mch_x', key: 'sk_test_abc' } });
    const howTo = [
      '',
      'Console: log in at http://127.0.0.1:3000/dashboard as an operator. Make one (it asks for the password):',
      '  npm run -s cli -- user add --email you@example.com --role operator',
      '',
    ].join('\n');
    expect(first).toContain('  Console:   http://127.0.0.1:3000/dashboard\n');
    expect(first.endsWith(`  npm run -s cli -- key create --merchant mch_x --mode test\n${howTo}`)).toBe(true);
    // Later starts (the key already shown) say it too; a start with the console off does not.
    expect(
      startBanner({ ...facts, consoleEnabled: true, demo: { merchantId: 'mch_x', key: null } }).endsWith(howTo),
    ).toBe(true);
    expect(
      startBanner({ ...facts, consoleEnabled: false, demo: { merchantId: 'mch_x', key: 'sk_test_abc' } }),
    ).not.toContain('dashboard');
  });

  // issue 37, section 8: once an operator exists, the console's address is all it needs.
  it('says how to make the first operator only while none exists', () => {
    const facts = {
      url: 'http://127.0.0.1:3000',
      databaseUrl: 'sqlite::memory:',
      cli: 'qris-gateway',
      consoleEnabled: true,
    };
    for (const key of ['sk_test_abc', null]) {
      const text = startBanner({ ...facts, demo: { merchantId: 'mch_x', key }, operatorExists: true });
      expect(text).toContain('  Console:   http://127.0.0.1:3000/dashboard\n');
      expect(text).not.toContain('user add');
      expect(text).not.toContain('Make one');
    }
  });
});
