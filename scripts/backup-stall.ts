// Measures what a scheduled backup costs the event loop (issue 25, part 5): fills an SQLite database with
// N transactions through the real create path (default 100 000), then takes a backup the way the server
// does (takeScheduledBackup: VACUUM INTO and the check, each in a worker thread) while a create load runs
// and perf_hooks.monitorEventLoopDelay watches the loop.
//   npx tsx scripts/backup-stall.ts [transactions]
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { openRuntime } from '../src/runtime.js';
import { takeScheduledBackup } from '../src/services/backups/scheduled-backup.js';
import { createMerchant } from '../src/services/merchants/create-merchant.js';
import { createTransaction } from '../src/services/transactions/create-transaction.js';

const count = Number(process.argv[2] ?? 100_000);
const fixtures = JSON.parse(readFileSync(new URL('../test/fixtures/qris-vectors.json', import.meta.url), 'utf8')) as {
  vectors: Array<{ static: string }>;
};
const dir = mkdtempSync(join(tmpdir(), 'qg-backup-stall-'));
const path = join(dir, 'gateway.db');

try {
  const config = loadConfig({
    DATABASE_URL: `sqlite:${path}`,
    DEMO_MERCHANT: 'false',
    EXPIRES_IN_MAX_SECONDS: String(30 * 86_400),
  });
  const runtime = await openRuntime(config, Date.now, { server: true });
  const merchant = await createMerchant(runtime.deps, { name: 'Stall', qris: fixtures.vectors[0]!.static });
  const started = Date.now();
  for (let made = 0; made < count; made += 1000) {
    await Promise.all(
      Array.from({ length: Math.min(1000, count - made) }, (_, i) =>
        createTransaction(runtime.deps, {
          merchantId: merchant.id,
          mode: 'live',
          amount: 10_000 + made + i,
          email: null,
          ref: `r${made + i}`,
          expiresInSeconds: null,
          idempotency: null,
        }),
      ),
    );
  }
  console.log(
    `${count} transactions made in ${Date.now() - started} ms; database ${statSync(path).size} bytes (+ log ${statSync(`${path}-wal`).size})`,
  );

  // The same create load measured twice: for as long as a backup takes, once with a backup and once
  // without, so the figure of the backup is told apart from what the creates cost by themselves.
  let n = 0;
  const watch = async <T>(during: () => Promise<T>, withCreates = true) => {
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    let longestGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 1);
    histogram.enable();
    let writing = withCreates;
    let creates = 0;
    const load = (async () => {
      while (writing) {
        n++;
        await createTransaction(runtime.deps, {
          merchantId: merchant.id,
          mode: 'live',
          amount: 5_000_000 + n,
          email: null,
          ref: `during${n}`,
          expiresInSeconds: null,
          idempotency: null,
        });
        creates++;
      }
    })();
    const began = performance.now();
    const value = await during();
    const ms = Math.round(performance.now() - began);
    writing = false;
    await load;
    histogram.disable();
    clearInterval(ticker);
    const figures = {
      ms,
      creates_acknowledged: creates,
      loop_delay_max_ms: +(histogram.max / 1e6).toFixed(2),
      loop_delay_p99_ms: +(histogram.percentile(99) / 1e6).toFixed(2),
      loop_delay_mean_ms: +(histogram.mean / 1e6).toFixed(2),
      longest_timer_gap_ms: +longestGap.toFixed(2),
    };
    return { value, figures };
  };
  const idle = await watch(() => takeScheduledBackup(runtime.deps, join(dir, 'backups'), 2), false);
  const backup = await watch(() => takeScheduledBackup(runtime.deps, join(dir, 'backups'), 2));
  const alone = await watch(() => new Promise((r) => setTimeout(r, backup.figures.ms)));
  const report = backup.value;
  console.log(
    JSON.stringify({
      backup_bytes: report.bytes,
      transactions_in_backup: report.tables.transactions,
      backup_alone: idle.figures,
      backup_with_creates: backup.figures,
      creates_alone: alone.figures,
    }),
  );
  await runtime.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
