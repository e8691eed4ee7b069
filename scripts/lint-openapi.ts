// `npm run lint:openapi`: the API's OpenAPI document as the app serves it at /openapi.json (built in-process
// on an in-memory SQLite database, with the default settings), written to a temporary file and checked by
// `redocly lint` with the rules of redocly.yaml (the recommended ones, each warning an error). Exits with
// redocly's status: non-zero when the document has a problem.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/app.js';
import { openRuntime } from '../src/runtime.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The document /openapi.json answers, of an app with the default settings. */
export async function openApiDocument(): Promise<unknown> {
  const runtime = await openRuntime(loadConfig({ DATABASE_URL: 'sqlite::memory:' }));
  try {
    const app = await buildApp({ deps: runtime.deps });
    try {
      const res = await app.inject({ url: '/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`/openapi.json answered ${res.statusCode}: ${res.body}`);
      return res.json();
    } finally {
      await app.close();
    }
  } finally {
    await runtime.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = mkdtempSync(join(tmpdir(), 'qg-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    // Indented, so redocly's line numbers point somewhere readable.
    writeFileSync(file, `${JSON.stringify(await openApiDocument(), null, 2)}\n`);
    const cli = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
    // No usage report to Redocly and no look-up of newer versions: the lint runs offline.
    const env = {
      ...process.env,
      REDOCLY_TELEMETRY: 'off',
      REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
      REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
    };
    const run = spawnSync(process.execPath, [cli, 'lint', '--config', join(ROOT, 'redocly.yaml'), file], {
      stdio: 'inherit',
      env,
    });
    process.exitCode = run.status ?? 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
