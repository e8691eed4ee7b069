// issue 26, item 13: every CLI command says what it does in its help, and the start-up refusals an
// operator meets first (SIGNUP=open without mail, a port already taken, a typo in a setting) end with a
// message naming the setting or the port and a non-zero exit, never as internal_error.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram, runCli } from '../../../src/cli/main.js';
import { freshDatabaseUrl } from '../../helpers/context.js';
import { freePort, runCommand } from '../../helpers/processes.js';

function everyCommand(parent: Command, path: string[] = []): Array<{ path: string; command: Command }> {
  return parent.commands.flatMap((command) => {
    const here = [...path, command.name()];
    return [{ path: here.join(' '), command }, ...everyCommand(command, here)];
  });
}

const notHere = (): never => {
  throw new Error('the help test runs no command');
};

describe('CLI help', () => {
  const program = buildProgram({
    io: { out: () => {}, err: () => {} },
    json: false,
    config: notHere,
    settings: notHere,
    env: {},
    actor: notHere,
    withDeps: async () => notHere(),
  });
  const commands = everyCommand(program);

  it('gives every command and subcommand a one-line description', () => {
    const paths = commands.map((c) => c.path);
    // The ones the walkthrough found bare are among those walked.
    for (const path of [
      'merchant add',
      'merchant list',
      'key create',
      'key list',
      'key revoke',
      'user add',
      'user list',
      'user invite',
      'qris decode',
      'qris sample',
    ]) {
      expect(paths).toContain(path);
    }
    const bare = commands.filter((c) => c.command.description().trim() === '').map((c) => c.path);
    expect(bare).toEqual([]);
    for (const { path, command } of commands) expect(command.description(), path).not.toContain('\n');
  });

  it("names every subcommand in a group's description that lists them (user lists invite)", () => {
    for (const { path, command } of commands) {
      const listed = /: ([a-z]+(?:, [a-z]+)+)$/.exec(command.description());
      if (!listed || command.commands.length === 0) continue;
      expect(listed[1]!.split(', ').sort(), path).toEqual(command.commands.map((c) => c.name()).sort());
    }
    const user = commands.find((c) => c.path === 'user')!.command;
    expect(user.description()).toMatch(/\binvite\b/);
  });

  it("prints the descriptions in a group's --help", async () => {
    const out: string[] = [];
    const code = await runCli(['user', '--help'], { out: (t) => void out.push(t), err: (t) => void out.push(t) }, {});
    expect(code).toBe(0);
    const help = out.join('');
    expect(help).toMatch(/^ {2}invite \[options\] +make an invitation link/m);
    expect(help).toMatch(/^ {2}add \[options\] +add a console user/m);
  });
});

describe('start-up refusals, from a real process', () => {
  let dir: string;
  let databaseUrl: string;
  let drop: () => Promise<void> = async () => {};
  let blocker: Server | null = null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-refusals-'));
    const database = await freshDatabaseUrl(dir);
    databaseUrl = database.url;
    drop = database.drop;
  });

  afterAll(async () => {
    if (blocker) await new Promise((resolve) => blocker!.close(resolve));
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('SIGNUP=open without SMTP_URL names the settings, for serve and for a command', async () => {
    const env = { DATABASE_URL: databaseUrl, PORT: String(await freePort()), SIGNUP: 'open' };
    const served = await runCommand(['serve'], env);
    expect(served.code).toBe(1);
    expect(served.stderr).toMatch(
      /^error: invalid_setting: SIGNUP=open needs SMTP_URL and MAIL_FROM: sign-up links are sent by e-mail$/m,
    );
    expect(served.stderr + served.stdout).not.toContain('internal_error');
    const listed = await runCommand(['merchant', 'list', '--json'], env);
    expect(listed.code).toBe(1);
    expect(JSON.parse(listed.stdout).error).toMatchObject({
      code: 'invalid_setting',
      message: expect.stringMatching(/^SIGNUP=open needs SMTP_URL/),
    });
  }, 180_000);

  it('a malformed setting is invalid_setting naming the variable', async () => {
    const r = await runCommand(['serve'], { DATABASE_URL: databaseUrl, PORT: '80a' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: invalid_setting: PORT must be a whole number, got "80a"$/m);
  }, 120_000);

  it('a port already in use is port_in_use naming the port and PORT', async () => {
    const port = await freePort();
    const holder = createServer();
    blocker = holder;
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    const r = await runCommand(['serve'], {
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error: port_in_use: port ${port} on 127.0.0.1 is already in use (EADDRINUSE): stop what listens there, or set PORT to a free port\n`,
    );
    expect(r.stderr + r.stdout).not.toContain('internal_error');
    // Nothing was started: no banner, no sandbox key used up.
    expect(r.stdout).not.toMatch(/running at|sk_test_/);
  }, 120_000);
});
