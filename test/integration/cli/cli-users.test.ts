import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.js';
import { verifyPassword } from '../../../src/hashing/passwords.js';
import { openDatabase } from '../../../src/storage/database.js';
import { freshDatabaseUrl } from '../../helpers/context.js';
import { bin, childEnv, runCommand } from '../../helpers/processes.js';

describe('user commands', () => {
  let dir: string;
  let env: Record<string, string>;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-users-'));
    const fresh = await freshDatabaseUrl(dir);
    drop = fresh.drop;
    env = { DATABASE_URL: fresh.url, QRIS_OPERATOR: 'tester', DEMO_MERCHANT: 'false' };
  });
  afterAll(async () => {
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function cli(argv: string[], extra: Record<string, string> = {}) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      argv,
      { out: (t) => void out.push(t), err: (t) => void err.push(t) },
      { ...env, ...extra },
    );
    return { code, stdout: out.join(''), stderr: err.join('') };
  }

  it('user add --json takes the password from ADMIN_PASSWORD and prints id, email and role', async () => {
    const r = await cli(['user', 'add', '--email', 'Admin@Example.test', '--role', 'operator', '--json'], {
      ADMIN_PASSWORD: 'a long enough secret',
    });
    expect(r.code).toBe(0);
    const user = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(user).sort()).toEqual(['email', 'id', 'role']);
    expect(user).toMatchObject({ email: 'admin@example.test', role: 'operator' });
    expect(String(user.id)).toMatch(/^usr_/);
    const database = openDatabase(env.DATABASE_URL!);
    try {
      const row = await database
        .selectFrom('users')
        .selectAll()
        .where('id', '=', String(user.id))
        .executeTakeFirstOrThrow();
      expect(row.password_hash).toMatch(/^scrypt\$15\$8\$1\$/);
      expect(row.password_hash).not.toContain('a long enough secret');
      expect(await verifyPassword('a long enough secret', row.password_hash)).toBe(true);
      const audit = await database
        .selectFrom('audit_log')
        .selectAll()
        .where('subject_id', '=', String(user.id))
        .execute();
      expect(audit.map((a) => [a.actor, a.action])).toEqual([['tester', 'user.add']]);
    } finally {
      await database.close();
    }
  });

  it('refuses a second user with the same address, a weak password and an unknown role', async () => {
    const again = await cli(['user', 'add', '--email', 'admin@example.test', '--role', 'operator', '--json'], {
      ADMIN_PASSWORD: 'another long secret',
    });
    expect(again.code).not.toBe(0);
    expect(JSON.parse(again.stdout).error.code).toBe('user_exists');
    const weak = await cli(['user', 'add', '--email', 'weak@example.test', '--role', 'operator', '--json'], {
      ADMIN_PASSWORD: 'short',
    });
    expect(JSON.parse(weak.stdout).error).toMatchObject({ code: 'invalid_parameter', param: 'password' });
    const role = await cli(['user', 'add', '--email', 'x@example.test', '--role', 'root', '--json'], {
      ADMIN_PASSWORD: 'a long enough secret',
    });
    expect(role.code).not.toBe(0);
    const merchantless = await cli(['user', 'add', '--email', 'm@example.test', '--role', 'merchant', '--json'], {
      ADMIN_PASSWORD: 'a long enough secret',
    });
    expect(JSON.parse(merchantless.stdout).error).toMatchObject({ code: 'invalid_parameter', param: 'merchant' });
  });

  it('user list, disable, enable and password', async () => {
    const list = JSON.parse((await cli(['user', 'list', '--json'])).stdout) as {
      items: Array<Record<string, unknown>>;
    };
    expect(list.items.map((u) => [u.email, u.role, u.disabled])).toEqual([['admin@example.test', 'operator', false]]);
    const off = JSON.parse((await cli(['user', 'disable', 'admin@example.test', '--json'])).stdout);
    expect(off).toMatchObject({ email: 'admin@example.test', disabled: true });
    const on = JSON.parse((await cli(['user', 'enable', String(off.id), '--json'])).stdout);
    expect(on.disabled).toBe(false);
    const pw = await cli(['user', 'password', 'admin@example.test', '--json'], {
      ADMIN_PASSWORD: 'a brand new secret',
    });
    expect(pw.code).toBe(0);
    const missing = await cli(['user', 'disable', 'nobody@example.test', '--json']);
    expect(JSON.parse(missing.stdout).error.code).toBe('user_not_found');
  });

  it('reads the password from standard input when ADMIN_PASSWORD is not set', async () => {
    const r = await runCommand(
      ['user', 'add', '--email', 'stdin@example.test', '--role', 'operator', '--json'],
      env,
      120_000,
      'typed on stdin ok\n',
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ email: 'stdin@example.test', role: 'operator' });
    const database = openDatabase(env.DATABASE_URL!);
    try {
      const row = await database
        .selectFrom('users')
        .select('password_hash')
        .where('email', '=', 'stdin@example.test')
        .executeTakeFirstOrThrow();
      expect(await verifyPassword('typed on stdin ok', row.password_hash)).toBe(true);
    } finally {
      await database.close();
    }
    // The first run after an edit compiles dist/ (bin/qris-gateway.mjs), which takes a while on a busy machine.
  }, 180_000);

  // util-linux's script(1) runs the command on a pseudo-terminal and copies what the terminal shows to
  // its standard output: what is typed shows there exactly when the terminal echoes it.
  it.runIf(spawnSync('script', ['--version']).status === 0)(
    'on a terminal, reads the password without echoing it (Backspace takes a character back)',
    async () => {
      const command = [process.execPath, bin, 'user', 'add', '--email', 'tty@example.test', '--role', 'operator']
        .map((a) => `'${a}'`)
        .join(' ');
      const child = spawn('script', ['-qfec', command, '/dev/null'], {
        env: childEnv(env),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let shown = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (shown += c));
      const done = new Promise<number | null>((resolve) => child.on('close', resolve));
      const deadline = Date.now() + 150_000;
      while (!shown.includes('password (not shown; then Enter): ') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      child.stdin.write('typed on a terminalX\u007f');
      child.stdin.write(' secret\r');
      expect(await done).toBe(0);
      child.stdin.end();
      expect(shown).toContain('tty@example.test');
      expect(shown).not.toContain('typed on a terminal');
      expect(shown).not.toContain('secret');
      const database = openDatabase(env.DATABASE_URL!);
      try {
        const row = await database
          .selectFrom('users')
          .select('password_hash')
          .where('email', '=', 'tty@example.test')
          .executeTakeFirstOrThrow();
        expect(await verifyPassword('typed on a terminal secret', row.password_hash)).toBe(true);
      } finally {
        await database.close();
      }
    },
    180_000,
  );
});
