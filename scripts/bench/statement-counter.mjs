// @ts-check
// Loaded into the gateway with --import when BENCH_STATEMENTS=1 (servers.mjs): counts the statements it
// sends to SQLite (better-sqlite3's run/all/get/iterate/exec) and to PostgreSQL (pg's Client#query, one
// round trip each), by SQL text. On SIGUSR2 it writes what it counted since the last signal to
// BENCH_STATEMENTS_FILE (JSON: [text, count] pairs) and starts again, so the bench reads one scenario's
// statements per request (load.mjs). Timing is left out: it would cost what it measures.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(`${process.cwd()}/package.json`);
/** @type {Map<string, number>} */
let counts = new Map();
const count = (/** @type {string} */ text) => {
  const key = text
    .replace(/\s+/g, ' ')
    .replace(/(\?, )+\?/g, '?..')
    .replace(/(\$\d+, )+\$\d+/g, '$..')
    .slice(0, 200);
  counts.set(key, (counts.get(key) ?? 0) + 1);
};

try {
  const Sqlite = require('better-sqlite3');
  const prepare = Sqlite.prototype.prepare;
  let patched = false;
  Sqlite.prototype.prepare = function (/** @type {string} */ source, ...rest) {
    const statement = prepare.call(this, source, ...rest);
    if (!patched) {
      patched = true;
      const proto = Object.getPrototypeOf(statement);
      for (const method of ['run', 'all', 'get', 'iterate']) {
        const original = proto[method];
        proto[method] = function (/** @type {unknown[]} */ ...args) {
          count(this.source);
          return original.apply(this, args);
        };
      }
    }
    return statement;
  };
  const exec = Sqlite.prototype.exec;
  Sqlite.prototype.exec = function (/** @type {string} */ source) {
    count(source);
    return exec.call(this, source);
  };
} catch {
  // not installed: nothing to count
}
try {
  const pg = require('pg');
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (/** @type {any} */ config, /** @type {any[]} */ ...rest) {
    // A named statement (statement-names.ts) is parsed and planned once per connection; an unnamed one
    // every time, so the two are counted apart.
    const text = typeof config === 'string' ? config : (config?.text ?? '?');
    count(typeof config === 'object' && config?.name ? text : `[unnamed] ${text}`);
    return query.call(this, config, ...rest);
  };
} catch {
  // not installed
}

process.on('SIGUSR2', () => {
  const file = process.env.BENCH_STATEMENTS_FILE;
  if (file) writeFileSync(file, JSON.stringify([...counts]));
  counts = new Map();
});
