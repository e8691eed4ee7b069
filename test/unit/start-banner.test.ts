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
    expect(describeDatabase('postgresql://user:pw@db.internal')).toBe('PostgreSQL, db.internal:5432/(default database)');
  });

  it('leaves the console out when it is off, and tells how to replace a key it cannot show', () => {
    const text = startBanner({
      url: 'http://127.0.0.1:3000',
      consoleEnabled: false,
      databaseUrl: 'postgres://u:pw@h/db',
      demo: { merchantId: 'mch_x', key: null },
      cli: 'qris-gateway',
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
    expect(startBanner({ url: 'http://h:1', consoleEnabled: true, databaseUrl: 'sqlite:/tmp/a.db', demo: null, cli: 'x' })).not.toMatch(/key/i);
    expect(workerBanner('postgres://u:pw@h/db')).toContain('  Database:  PostgreSQL, h:5432/db\n');
    expect(workerBanner('postgres://u:pw@h/db')).not.toContain('pw');
  });
});
