// What a start prints for the person at the terminal (the JSON log lines are for machines): where the
// gateway answers, its docs and console, which database it uses, and the sandbox merchant's key or how
// to make a new one. Printed on every start, not only the first.
import { sqlitePathFromUrl } from './storage/database.js';

export interface StartFacts {
  url: string;
  consoleEnabled: boolean;
  databaseUrl: string;
  /** The sandbox merchant: its key when this start made it (shown only now), null when an earlier start did. */
  demo: { merchantId: string; key: string | null } | null;
  /** How CLI commands are run here: `npm run -s cli --` in a checkout, `qris-gateway` when installed. */
  cli: string;
  /** Whether an operator who can log in exists: the how-to of the first one is said only while none does. */
  operatorExists: boolean;
}

export function startBanner(facts: StartFacts): string {
  const { url, demo } = facts;
  const lines = ['', `qris-gateway is running at ${url}`, `  API docs:  ${url}/docs`];
  if (facts.consoleEnabled) lines.push(`  Console:   ${url}/dashboard`);
  lines.push(`  Database:  ${describeDatabase(facts.databaseUrl)}`);
  if (demo) {
    const newKey = `${facts.cli} key create --merchant ${demo.merchantId} --mode test`;
    if (demo.key) {
      lines.push(
        '',
        `Created a sandbox merchant (${demo.merchantId}) and a test key, shown only now:`,
        '',
        `  ${demo.key}`,
        '',
        'Try:',
        `  curl -H 'X-Api-Key: ${demo.key}' '${url}/api/payment-gateway/cqris?amount=10000'`,
        '',
        'Key not saved? Make another:',
        `  ${newKey}`,
      );
    } else {
      // The key itself is stored only as a hash: it cannot be shown again, only replaced.
      lines.push(
        '',
        `Sandbox merchant ${demo.merchantId}: its test key was shown on the first start. Key not saved? Make another:`,
        `  ${newKey}`,
      );
    }
  }
  // Quick start (the sandbox merchant is there): the console's address alone does not get anyone in, since
  // it has no user until one is made; `user add` asks for the password (never an argument). Once an
  // operator exists, the console's address above is all it needs.
  if (demo && facts.consoleEnabled && !facts.operatorExists) {
    lines.push(
      '',
      `Console: log in at ${url}/dashboard as an operator. Make one (it asks for the password):`,
      `  ${facts.cli} user add --email you@example.com --role operator`,
    );
  }
  lines.push('');
  return lines.join('\n');
}

/** What the worker role prints: it serves no HTTP. */
export function workerBanner(databaseUrl: string): string {
  return [
    '',
    'qris-gateway worker is running (no HTTP: expiry, webhooks, mail, pollers, backups)',
    `  Database:  ${describeDatabase(databaseUrl)}`,
    '',
  ].join('\n');
}

/** The database kind and where it is; never a user name or password. */
export function describeDatabase(databaseUrl: string): string {
  const path = sqlitePathFromUrl(databaseUrl);
  if (path !== null) return path === ':memory:' ? 'SQLite, in memory' : `SQLite, ${path}`;
  try {
    const url = new URL(databaseUrl);
    const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || '(default database)';
    return `PostgreSQL, ${url.hostname || 'localhost'}:${url.port || '5432'}/${database}`;
  } catch {
    return 'PostgreSQL';
  }
}
