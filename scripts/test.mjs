// @ts-check
// `npm test`: runs the whole suite with vitest and ends with one plain line, `N passed, N failed`,
// counted from vitest's JSON report so that a run which tested nothing shows as such.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';
import pg from 'pg';

const vitest = createRequire(import.meta.url).resolve('vitest/vitest.mjs');
const report = '.test-results.json';
const extra = process.argv.slice(2);

function run(label, env, skip = [], config = null) {
  rmSync(report, { force: true });
  process.stdout.write(`\n== tests on ${label} ==\n`);
  const result = spawnSync(
    process.execPath,
    [
      vitest,
      'run',
      ...(config ? ['--config', config] : []),
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...skip.flatMap((file) => ['--exclude', file]),
      ...extra,
    ],
    {
      stdio: 'inherit',
      env: { ...process.env, ...env },
    },
  );
  let passed = 0;
  let failed = 0;
  /** @type {string[]} */
  const failures = [];
  if (existsSync(report)) {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    passed = json.numPassedTests ?? 0;
    failed = (json.numFailedTests ?? 0) + (json.numRuntimeErrorTests ?? 0);
    // A file that fails to load, or whose beforeAll throws (its tests then show as skipped), fails no
    // test but must not pass silently: it counts as one failure.
    for (const file of json.testResults ?? []) {
      const name = relative('.', file.name ?? '');
      if (file.status === 'failed' && !(file.assertionResults ?? []).some((a) => a.status === 'failed')) {
        failed += 1;
        failures.push(`${label}: ${name} (did not load or its setup failed)`);
      }
      for (const a of file.assertionResults ?? []) {
        if (a.status === 'failed') failures.push(`${label}: ${name} > ${a.fullName ?? a.title}`);
      }
    }
  } else {
    failed += 1;
    failures.push(`${label}: vitest wrote no report`);
  }
  return { passed, failed, failures, ok: result.status === 0 && failed === 0 && passed > 0 };
}

/**
 * Test contexts hand their migrated schemas back for the next one to reuse (test/helpers/migrated-database.ts);
 * the run leaves none behind in the operator's database.
 */
async function dropFreeSchemas(url) {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query(
      "select nspname as name from pg_namespace where starts_with(nspname, 'qg_free_')",
    );
    for (const { name } of rows) await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
  } catch (error) {
    process.stdout.write(`(could not drop the test run's free schemas: ${error.message})\n`);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The test files whose outcome cannot depend on the database: their imports, followed through test/,
 * never reach test/helpers/context.ts, the one place a test learns which database this run is on (and
 * makes one). The PostgreSQL pass leaves them out: it would run exactly the same code a second time.
 * A file that starts to use a database imports the helper, and so joins that pass by itself.
 */
function databaseFreeFiles() {
  const chooser = resolve('test/helpers/context.ts');
  /** @type {string[]} */
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith('.ts')) files.push(resolve(path));
    }
  };
  walk('test');
  // Only a yes is remembered: a no found while an import circle was cut short may be a yes from elsewhere.
  /** @type {Set<string>} */
  const reaching = new Set();
  const reaches = (file, seen = new Set()) => {
    if (file === chooser || reaching.has(file)) return true;
    if (seen.has(file) || !existsSync(file)) return false;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const found = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].some((m) =>
      reaches(resolve(dirname(file), /** @type {string} */ (m[1])).replace(/\.js$/, '.ts'), seen),
    );
    if (found) reaching.add(file);
    return found;
  };
  return files.filter((f) => f.endsWith('.test.ts') && !reaches(f)).map((f) => relative('.', f));
}

// The same suite runs on SQLite always, and again on PostgreSQL when TEST_DATABASE_URL names one (each
// test context then works in a schema of its own there).
const runs = [run('SQLite', { QG_TEST_DATABASE: 'sqlite' })];
if (process.env.TEST_DATABASE_URL) {
  runs.push(run('PostgreSQL', { QG_TEST_DATABASE: 'postgres' }, databaseFreeFiles()));
  await dropFreeSchemas(process.env.TEST_DATABASE_URL);
}
// CI (.ci/run) adds the deploy test (npm run test:deploy: the image and compose.yaml in Docker), so its
// cases count in the one totals line; on a machine with only Node.js and npm it is not run.
if (process.env.QG_TEST_DEPLOY === '1') runs.push(run('Docker', {}, [], 'test/deploy/vitest.config.ts'));
const passed = runs.reduce((n, r) => n + r.passed, 0);
const failed = runs.reduce((n, r) => n + r.failed, 0);
// A CI log is often read from its tail: what failed is named right above the totals.
const failures = runs.flatMap((r) => r.failures);
if (failures.length > 0) process.stdout.write(`\nFailed:\n${failures.map((f) => `  ${f}`).join('\n')}\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(runs.every((r) => r.ok) ? 0 : 1);
