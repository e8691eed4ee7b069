// Issue 25, part 3: the disk fills up under a real gateway process on a SQLite file. The fault is real: the
// process's file-size limit (RLIMIT_FSIZE, set from outside with util-linux's `prlimit --pid`) is lowered
// to a little above the database's size after start-up, so a write past it fails with EFBIG, which SQLite
// reports as SQLITE_IOERR_WRITE, as a full disk fails a write with ENOSPC (SQLITE_FULL). Node ignores
// SIGXFSZ, so the process lives on. Under a create load: every refused create is a 503
// storage_unavailable with Retry-After, reads go on, and once the limit is raised (space is back) creates
// succeed again with no restart; afterwards the file passes integrity_check and holds exactly the
// acknowledged creates.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CQRIS, CSTATUS } from '../../helpers/api.js';
import { onPostgres, seedSqliteFile } from '../../helpers/context.js';
import { commandRuns, runCommand, startGateway, type GatewayProcess } from '../../helpers/processes.js';

const hasPrlimit = commandRuns('prlimit');
const skipReason = onPostgres
  ? 'SQLite only: the fault is a file that may grow no further'
  : hasPrlimit
    ? null
    : 'needs prlimit (util-linux) on the PATH';

/** How one create ended, as its client saw it. */
type Answer =
  | { kind: 'created'; trxid: string }
  | { kind: 'refused'; status: number; code: string; retryAfter: string | null; connection: string | undefined }
  /** Anything a client could not act on: another status, a cut connection, no answer in time. */
  | { kind: 'broken'; detail: string };

// Long enough for any answer on a loaded 2-core machine; a request still open after it is a hang.
const ANSWER_TIMEOUT_MS = 30_000;

function createOnce(agent: http.Agent, base: string, key: string): Promise<Answer> {
  return new Promise((resolve) => {
    // A fresh amount each time, so no amount runs out of unique codes.
    const amount = 1000 + Math.floor(Math.random() * 5_000_000);
    const req = http.request(
      `${base}${CQRIS}?amount=${amount}`,
      { agent, headers: { 'x-api-key': key }, timeout: ANSWER_TIMEOUT_MS },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => resolve({ kind: 'broken', detail: `body cut: ${err.message}` }));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            const body = JSON.parse(text) as { data?: { trxid?: string }; error?: { code?: string } };
            if (status === 200 && typeof body.data?.trxid === 'string')
              return resolve({ kind: 'created', trxid: body.data.trxid });
            if (status === 503 && typeof body.error?.code === 'string') {
              const retryAfter = res.headers['retry-after'] ?? null;
              return resolve({
                kind: 'refused',
                status,
                code: body.error.code,
                retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
                connection: res.headers.connection,
              });
            }
          } catch {
            // reported below
          }
          resolve({ kind: 'broken', detail: `${status}: ${text.slice(0, 300)}` });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ kind: 'broken', detail: `${err.code ?? ''} ${err.message}` }),
    );
    req.end();
  });
}

/** `connections` loops of creates, one after another on each, until stop() is called. */
function createLoad(base: string, key: string, connections: number, onAnswer: (a: Answer) => void) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  let over = false;
  const loop = async () => {
    while (!over) onAnswer(await createOnce(agent, base, key));
  };
  const running = Promise.all(Array.from({ length: connections }, loop));
  return {
    async stop() {
      over = true;
      await running;
      agent.destroy();
    },
  };
}

async function until(what: string, check: () => boolean, output: () => string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const fileSize = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

function setFileSizeLimit(pid: number, soft: number | 'unlimited'): void {
  execFileSync('prlimit', ['--pid', String(pid), `--fsize=${soft}:unlimited`]);
}

/** The gateway's JSON log lines (pino), the rest ignored. */
type LogLine = { level: number; time: number; msg: string; worker?: string; refused?: number };
function logLines(output: string): LogLine[] {
  return output.split('\n').flatMap((line) => {
    try {
      const entry = JSON.parse(line) as { level?: unknown; msg?: unknown };
      return typeof entry.level === 'number' && typeof entry.msg === 'string' ? [entry as LogLine] : [];
    } catch {
      return [];
    }
  });
}

describe.skipIf(skipReason !== null)(
  `when the disk fills up (SQLite, a real gateway process)${skipReason ? ` [skipped: ${skipReason}]` : ''}`,
  () => {
    let dir: string;
    let dbPath: string;
    let key: string;
    let gateway: GatewayProcess | null = null;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'qg-disk-full-'));
      dbPath = join(dir, 'gateway.db');
      key = await seedSqliteFile(dbPath);
      // Builds dist/ if the sources changed, before any process runs under a file-size limit.
      expect((await runCommand(['--version'], {})).code).toBe(0);
    }, 180_000);

    afterAll(async () => {
      await gateway?.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });

    it('refuses creates with 503 storage_unavailable while it cannot write, serves reads, resumes by itself and loses nothing', async () => {
      const g = await startGateway({
        DATABASE_URL: `sqlite:${dbPath}`,
        DEMO_MERCHANT: 'false',
        RATE_LIMIT_PER_MINUTE: '0',
        LOG_LEVEL: 'info',
        // Background writes during the outage: the expiry sweep often, scheduled backups about every second.
        SWEEP_INTERVAL_MS: '200',
        BACKUP_DIR: join(dir, 'backups'),
        BACKUP_INTERVAL_HOURS: '0.0003',
        BACKUP_KEEP: '2',
      });
      gateway = g;
      const pid = g.child.pid!;
      let raisedAt = 0;
      let mainFileAtRaise = 0;

      // The files as start-up left them; the limit sits a little above the largest, so a few batches of
      // creates fit (the log grows between checkpoints, the checkpointer thread writes the main file) and
      // then the writes meet it.
      const sizes = { db: fileSize(dbPath), wal: fileSize(`${dbPath}-wal`), shm: fileSize(`${dbPath}-shm`) };
      const limit = Math.max(sizes.db, sizes.wal, sizes.shm) + 256 * 1024;
      setFileSizeLimit(pid, limit);

      const answers: Answer[] = [];
      const phase = { fault: true };
      const during: Answer[] = [];
      const after: Answer[] = [];
      const load = createLoad(g.url, key, 8, (a) => {
        answers.push(a);
        (phase.fault ? during : after).push(a);
      });
      const count = (list: Answer[], kind: Answer['kind']) => list.filter((a) => a.kind === kind).length;
      try {
        await until(
          'creates to be refused',
          () => count(during, 'refused') >= 20 || count(during, 'broken') > 0,
          g.output,
        );

        // Reads go on while writes cannot: a created transaction's status, the health checks.
        const made = answers.find((a) => a.kind === 'created');
        expect(made, 'no create was acknowledged before the limit was met').toBeDefined();
        const trxid = (made as { trxid: string }).trxid;
        const status = await fetch(`${g.url}${CSTATUS}?trxid=${trxid}`, { headers: { 'x-api-key': key } });
        expect(status.status).toBe(200);
        expect(((await status.json()) as { data: { trxid: string } }).data.trxid).toBe(trxid);
        expect((await fetch(`${g.url}/healthz`)).status).toBe(200);
        // /readyz asks the database a question, which a full disk does not stop: it stays ready, since this
        // instance still serves every read and answers writes at once with a retryable 503.
        expect((await fetch(`${g.url}/readyz`)).status).toBe(200);
        await until(
          'more refused creates',
          () => count(during, 'refused') >= 40 || count(during, 'broken') > 0,
          g.output,
        );

        // Space comes back: the same process takes creates again.
        setFileSizeLimit(pid, 'unlimited');
        raisedAt = Date.now();
        mainFileAtRaise = fileSize(dbPath);
        phase.fault = false;
        await until(
          'creates to succeed again',
          () => count(after, 'created') >= 100 || count(after, 'broken') > 0,
          g.output,
        );
      } finally {
        await load.stop();
      }
      // The checkpointer thread, whose copies of the log into the main file failed too, resumes by itself:
      // the creates made since reach the main file (the main connection's own backstop checkpoint is
      // thousands of pages away).
      await until(
        'the main file to grow',
        () => fileSize(dbPath) > mainFileAtRaise,
        () => `${fileSize(dbPath)} ${fileSize(`${dbPath}-wal`)} ${mainFileAtRaise}\n${g.output()}`,
      );
      // Every worker that backed off says it resumed, and scheduled backups are made again.
      const workers = () => new Set(logLines(g.output()).flatMap((l) => (l.worker ? [l.worker] : [])));
      const resumed = () =>
        new Set(logLines(g.output()).flatMap((l) => (l.level === 30 && l.worker ? [l.worker] : [])));
      await until('every worker to resume', () => [...workers()].every((w) => resumed().has(w)), g.output);
      await until(
        'a scheduled backup after the fault',
        () => logLines(g.output()).some((l) => l.msg === 'scheduled backup made' && l.time > raisedAt),
        g.output,
      );
      expect(g.child.exitCode).toBeNull();
      expect(await g.stop('SIGTERM')).toBe(0);

      const broken = answers.filter((a) => a.kind === 'broken');
      expect(broken, g.output().slice(-4000)).toEqual([]);
      const refused = answers.filter((a): a is Extract<Answer, { kind: 'refused' }> => a.kind === 'refused');
      for (const r of refused) expect(r).toMatchObject({ status: 503, code: 'storage_unavailable', retryAfter: '2' });
      // A refusal closes nothing: the client's keep-alive connection goes on.
      expect(refused.filter((r) => r.connection === 'close')).toEqual([]);

      const created = answers.flatMap((a) => (a.kind === 'created' ? [a.trxid] : []));
      const db = new BetterSqlite3(dbPath, { readonly: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const has = db.prepare('select 1 from transactions where id = ?').pluck();
        const missing = created.filter((id) => has.get(id) === undefined);
        const rows = db.prepare('select count(*) from transactions').pluck().get() as number;
        console.log(
          `disk full: limit ${limit} bytes over ${JSON.stringify(sizes)}; during the fault ${count(during, 'created')} created, ${count(during, 'refused')} refused (503); after ${count(after, 'created')} created, ${count(after, 'refused')} refused; acknowledged ${created.length}, rows ${rows}, missing ${missing.length}`,
        );
        expect(missing).toEqual([]);
        // Nothing but the acknowledged creates: a 503 with Retry-After made no row.
        expect(rows).toBe(created.length);
      } finally {
        db.close();
      }

      // The outage is logged once as it starts (with the driver's error) and once as it ends, not per
      // refused request (each of those is only an info request line with its status). A disk this close to
      // full flaps: the checkpointer recycles the log and a few commits fit again; each spell is one pair.
      // Every background worker that met it says once that it backs off and once that it resumed.
      const lines = logLines(g.output());
      const spells = lines.filter(
        (l) => l.msg.startsWith('storage unavailable') || l.msg.startsWith('storage writable again'),
      );
      expect(spells.length).toBeGreaterThanOrEqual(2);
      expect(spells.length % 2, 'the last spell ended').toBe(0);
      for (const [i, l] of spells.entries())
        expect([l.level, l.msg.startsWith('storage unavailable')]).toEqual(i % 2 === 0 ? [40, true] : [30, false]);
      // The ends count every refused unit of work: the clients' 503s and any background round's.
      const refusedUnits = spells.reduce((sum, l) => sum + (l.refused ?? 0), 0);
      expect(refusedUnits).toBeGreaterThanOrEqual(refused.length);
      for (const worker of new Set(lines.flatMap((l) => (l.worker ? [l.worker] : [])))) {
        lines
          .filter((l) => l.worker === worker)
          .forEach((l, i, all) => {
            expect(l.level).toBe(i % 2 === 0 ? 40 : 30);
            if (i === all.length - 1) expect(l.level).toBe(30);
          });
      }
      console.log(`disk full log: ${spells.length / 2} outage spells logged, ${refusedUnits} units refused`);
      // Nothing else went wrong: no error line but a scheduled backup's that met the limit.
      expect(lines.filter((l) => l.level >= 50 && l.msg !== 'scheduled backup failed')).toEqual([]);
    }, 240_000);
  },
);
