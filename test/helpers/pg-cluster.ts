// A PostgreSQL server that one test owns: its own data folder (initdb) and port, started and stopped with
// pg_ctl, so a test can take it down under load (`pg_ctl stop -m immediate`, a crash as far as clients can
// tell) without disturbing the machine's shared server or any other test. Needs PostgreSQL's server
// binaries (initdb, pg_ctl), found on PATH or in /usr/lib/postgresql/<version>/bin; `binaries()` is null
// without them and the test skips, saying so. Run as root (CI), the server runs as the `postgres` user,
// because PostgreSQL refuses to run as root.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './processes.js';

export interface PgBinaries {
  initdb: string;
  pgCtl: string;
}

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

export function binaries(): PgBinaries | null {
  const initdb = onPath('initdb');
  const pgCtl = onPath('pg_ctl');
  if (initdb && pgCtl) return { initdb, pgCtl };
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  for (const version of readdirSync(base).sort().reverse()) {
    const bin = join(base, version, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl')))
      return { initdb: join(bin, 'initdb'), pgCtl: join(bin, 'pg_ctl') };
  }
  return null;
}

/** The uid and gid to run the server as: ours, or the `postgres` user's when we are root. */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

function run(file: string, args: string[], user: { uid: number; gid: number } | null): Promise<string> {
  return new Promise((resolve, reject) => {
    // pg_ctl start leaves the server running with its output in the log file; stdio is not inherited,
    // so the test's own streams are not held open by it.
    const child = spawn(file, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(user ?? {}),
      env: { ...process.env, LC_ALL: 'C' },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${file} ${args.join(' ')} exited ${code}:\n${out}`)),
    );
  });
}

export class PgCluster {
  private constructor(
    private readonly bins: PgBinaries,
    readonly dir: string,
    readonly port: number,
    private readonly user: { uid: number; gid: number } | null,
  ) {}

  /** The `postgres` database of this server, as the gateway's DATABASE_URL. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private get data(): string {
    return join(this.dir, 'data');
  }

  static async create(bins: PgBinaries): Promise<PgCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'qg-pgcluster-'));
    const user = serverUser();
    if (user) chownSync(dir, user.uid, user.gid);
    const cluster = new PgCluster(bins, dir, await freePort(), user);
    // --no-sync: the folder is thrown away after the test; the server itself runs with fsync on.
    await run(
      bins.initdb,
      ['-D', cluster.data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'],
      user,
    );
    await cluster.start();
    return cluster;
  }

  async start(): Promise<void> {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -k ${this.dir} -c max_connections=60`;
    await run(
      this.bins.pgCtl,
      ['-D', this.data, '-o', options, '-l', join(this.dir, 'server.log'), '-w', '-t', '60', 'start'],
      this.user,
    );
  }

  /** Stops the server as a crash would: every backend killed, no checkpoint, recovery at the next start. */
  async crash(): Promise<void> {
    await run(this.bins.pgCtl, ['-D', this.data, '-m', 'immediate', '-w', 'stop'], this.user);
  }

  /**
   * SIGSTOP (or SIGCONT) to the server and all its processes: a server that accepts nothing and answers
   * nothing, while its sockets stay open, as a hung host or a silent network looks to a client.
   */
  freeze(): void {
    this.signalAll('SIGSTOP');
  }

  thaw(): void {
    this.signalAll('SIGCONT');
  }

  private signalAll(signal: NodeJS.Signals): void {
    const postmaster = Number(readFileSync(join(this.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    let children: number[] = [];
    try {
      children = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .filter(Boolean)
        .map(Number);
    } catch {
      // No children.
    }
    // The postmaster first when stopping (so it forks no new backend), last when continuing.
    const order = signal === 'SIGSTOP' ? [postmaster, ...children] : [...children, postmaster];
    for (const pid of order) process.kill(pid, signal);
  }

  /** Ends every connection of other clients to the `postgres` database (pg_terminate_backend); returns how many. */
  async terminateClients(): Promise<number> {
    const admin = new pg.Client({ connectionString: this.url, application_name: 'qg-test-admin' });
    await admin.connect();
    try {
      const res = await admin.query<{ n: string }>(
        "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = 'postgres' AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
      );
      return Number(res.rows[0]!.n);
    } finally {
      await admin.end();
    }
  }

  async destroy(): Promise<void> {
    try {
      this.thaw();
    } catch {
      // Not running.
    }
    try {
      await run(this.bins.pgCtl, ['-D', this.data, '-m', 'immediate', '-w', 'stop'], this.user);
    } catch {
      // Already stopped.
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
