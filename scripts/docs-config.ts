// docs/configuration.md's table of settings, written from the gateway's settings registry (src/config.ts):
// one row per setting, in the registry's order, with its name and the default as the registry shows it.
// The meaning is the registry's one-line doc, or the longer text below where the page says more. Written
// by `npm run -s docs:config` between the page's two marker comments; test/unit/settings-registry.test.ts
// fails when the committed page is not what this renders (a setting added, renamed, or a default changed).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SETTINGS } from '../src/config.js';
import type { Setting } from '../src/settings/kit.js';

export const CONFIGURATION_DOC_PATH = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));

export const TABLE_START =
  '<!-- settings-table: written by `npm run -s docs:config` from the settings registry; edit scripts/docs-config.ts, not this table -->';
export const TABLE_END = '<!-- /settings-table -->';

/** What the page says about a setting where its registry doc is too short for the reader (Markdown, one line, no `|`). */
const MORE: Record<string, string> = {
  HOST: 'address to listen on (`0.0.0.0` for all)',
  DATABASE_URL: '`sqlite:<path>` or `postgres://...`',
  PUBLIC_BASE_URL: 'base of `qr_image_url` and `checkout_url` as payers reach them',
  LOG_LEVEL: 'pino level; API keys are redacted from every line',
  RATE_LIMIT_PER_MINUTE: 'requests per key per minute; `0` turns limits off',
  AMOUNT_MIN: 'smallest `amount`',
  AMOUNT_MAX: "largest total including the unique code (Bank Indonesia's QRIS limit)",
  UNIQUE_CODE_MIN: 'smallest unique code added to or subtracted from an amount (the range ends at `UNIQUE_CODE_MAX`)',
  UNIQUE_CODE_MAX:
    'largest unique code; a price gets at most `max(99, 1% of it)`, added or subtracted as its merchant chose',
  EXPIRES_IN_MIN_SECONDS: 'smallest `expires_in` (a bound, with `EXPIRES_IN_MAX_SECONDS`)',
  EXPIRES_IN_MAX_SECONDS: 'largest `expires_in`',
  REFUND_MAX_PER_TRANSACTION:
    'the most refunds one transaction may have, failed ones included; past it a refund is a 409 `refund_limit_reached` (see [Refunds](payments.md#refunds))',
  REFUND_NOTICE_WINDOW_SECONDS:
    'a payer gets at most one refund notice per transaction in this many seconds (60 to 604800); the refunds of a window are told together, in the next notice (see [E-mail](alerts-and-email.md#e-mail))',
  TRUST_PROXY:
    "the proxies in front of the gateway, whose `X-Forwarded-For` names the client: how many stand one behind the other (`1`, `2`, ...), or their addresses and CIDRs, comma-separated (`127.0.0.1,10.0.0.0/8`). The client is the entry the outermost of them appended; what a client writes into the header itself is never read. `true` is `1`; `false` trusts no header (every limit counts the socket's peer). With a count, the gateway must be reachable only through the proxies (`HOST=127.0.0.1`, or a firewall), or a client that connects directly can name any address it likes; list the proxies' addresses where it is not. Anything else is a start-up error",
  METRICS_TOKEN: 'when set, `/metrics` requires `Authorization: Bearer <token>`',
  REDIS_URL:
    '`redis://...`: rate limits shared by every instance (one round trip per request); in memory when unset. While Redis is unreachable each instance holds the limits in its own memory (see [Redis goes away](operations.md#redis-goes-away))',
  DATABASE_QUERY_TIMEOUT_MS:
    'a PostgreSQL query still unanswered after this long (a server that froze, a network that drops packets silently) has its connection ended, and the request answers 503 `database_unavailable`; `0` never. Checked about once a second, so a query is ended up to a second later. Keep it above the longest query you expect',
  DATABASE_CONNECT_TIMEOUT_MS:
    'how long a request waits for a PostgreSQL connection (a new one, or a free one of the pool) before it answers 503 `database_unavailable` ([PostgreSQL goes away](operations.md#postgresql-goes-away))',
  SNAP_POLL_MAX_DELAY_SECONDS:
    'longest gap between two queries of one open SNAP transaction (the gaps grow 5 s, 10 s, 20 s ... up to this)',
  WEBHOOK_TIMEOUT_MS: 'how long one webhook POST may take (connect, answer) before it counts as failed',
  WEBHOOK_DISPATCH_INTERVAL_MS:
    'how often the dispatcher looks for due webhook deliveries (at once again while there is a backlog)',
  WEBHOOK_ALLOW_NETWORKS:
    'comma-separated CIDRs (`127.0.0.0/8,fd00::/8`) that webhooks and mutation feeds may reach although they are loopback, private, link-local or otherwise refused',
  HTTP_HEADERS_TIMEOUT_MS:
    "how long a client may take to send a request's headers, from the moment it connects (or a later request's first byte); then 408 `request_timeout` and the connection is closed",
  HTTP_REQUEST_TIMEOUT_MS:
    'how long a client may take to send a whole request, body included (at least `HTTP_HEADERS_TIMEOUT_MS`); then 408 and closed',
  HTTP_BODY_TIMEOUT_MS:
    "how long a client without a console session may take to send a request's body after its headers (at most `HTTP_REQUEST_TIMEOUT_MS`); then 408 and closed ([Overload](operations.md#overload)); a logged-in console user's upload keeps `HTTP_REQUEST_TIMEOUT_MS`",
  HTTP_KEEP_ALIVE_TIMEOUT_MS:
    'how long an idle keep-alive connection stays open (at least `1000`); clients are told it in `Keep-Alive: timeout=<seconds>`. A proxy in front should drop its idle connections to the gateway sooner (nginx: `keepalive_timeout 4s;` in the `upstream` block)',
  SHUTDOWN_TIMEOUT_MS:
    'the longest a shutdown on `SIGTERM`/`SIGINT` may take: whatever is still running then is cut and the process exits with code 1 (see [Stopping](operations.md#stopping))',
  BACKUP_DIR:
    "SQLite: the folder the server writes a verified backup to every `BACKUP_INTERVAL_HOURS` (and once at start); unset means no scheduled backups. Also where the copy taken before an upgrade's migrations goes (beside the database when unset; see [Upgrades](operations.md#upgrades)). Ignored on PostgreSQL, with one log line (use `pg_dump`; see [Backups](operations.md#backups))",
  BACKUP_INTERVAL_HOURS: 'hours between two scheduled backups; fractions allowed (`0.5`)',
  BACKUP_KEEP:
    'how many scheduled backups stay in `BACKUP_DIR`; the oldest beyond it are removed (only files named `qris-gateway-backup-*.db`)',
  SMTP_URL:
    '`smtp://host:port` or `smtps://user:pass@host:465` (percent-encode special characters in user and password): the relay for payer e-mail; unset means e-mails are recorded as skipped. The password never appears in logs',
  MAIL_FROM: 'sender, `pay@example.com` or `Toko Contoh <pay@example.com>`; required when `SMTP_URL` is set',
  MATCH_CLOCK_SKEW_SECONDS:
    'a payment matched by amount may be dated this long before its transaction was created (clocks disagree)',
  CROSS_SOURCE_WINDOW_SECONDS:
    "a paid transaction's amount reported by another source dated this close to its reports is the same payment, not a double payment (0: never); see [One payment, two sources](payment-sources.md#one-payment-two-sources)",
  CHECKOUT_STREAMS_PER_ADDRESS:
    'open checkout status streams per client address (IPv6: per /64); more get 429 `too_many_streams` and the page polls',
  CHECKOUT_STREAMS_PER_TRANSACTION: 'open checkout status streams per transaction; more get 429 `too_many_streams`',
  CHECKOUT_STREAMS_TOTAL:
    'open checkout status streams per process (each holds a socket); more get 503 `streams_at_capacity`',
  CHECKOUT_HEARTBEAT_SECONDS: 'how often each open status stream gets a heartbeat comment',
  STATUS_WATCH_INTERVAL_MS:
    'how often a server looks for status changes made by other processes (SQLite: one `PRAGMA data_version`) and for expiries of transactions with open pages; keep it under 2000 for the 2-second promise',
  SESSION_CHECK_INTERVAL_MS:
    'how often each server checks that the sessions of its open soundbox streams still stand (one read for all of them): a stream whose user logged out, was disabled or deleted, or whose password changed ends within this, whichever instance made the change',
  CONSOLE: 'serve the console at `/dashboard`',
  SIGNUP:
    'who may make a console account: `closed` (nobody; `/signup` is a 404), `invite` (people an operator invites) or `open` (anyone; needs `SMTP_URL`)',
  LIVE_KEYS: 'whether live keys of a merchant a self-service user added work only after an operator approves it',
  SIGNUPS_PER_ADDRESS:
    'sign-ups (and reset requests) per client address before each further one waits longer, from a minute up to a day',
  SIGNUP_PLAN_DAILY_CREATES:
    'the daily create quota of a merchant a self-service user adds (operators change it with `merchant quota`)',
  MERCHANTS_PER_USER:
    "how many merchants a self-service user may add and belong to; one more is refused on the portal (`merchant_limit_reached`). `0`: self-service users add none. Operators' merchants and invitations are not limited",
  PAYMENT_LINK_CREATES_PER_MINUTE:
    'opens of a payment link with an amount (`/pay/{handle}/{amount}`) per client address (IPv6: per /64) per minute; more get a 429 page with `Retry-After`. In Redis when `REDIS_URL` is set; `0` turns the limit off',
  PAYMENT_LINK_DAILY_CREATES:
    "transactions one merchant's payment links may make per WIB day (at least `1`), counted in the database like the quota but apart from it: link payments never count against the merchant's daily create quota, so anonymous payers cannot use up what its API needs. Over it, a link answers a 429 page until midnight WIB. The default is half the default unique-code range, so links alone can never hold every code of one amount",
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS:
    'mean event-loop delay over one sample past which requests are shed with 503 `overloaded` ([Overload](operations.md#overload)); `0` turns it off. A saturated server shows tens of milliseconds, so only a stalled loop trips it',
  OVERLOAD_MAX_HEAP_USED_BYTES:
    'V8 heap in use past which requests are shed; `0` turns it off. Past it the process would soon die of an out-of-memory error',
  OVERLOAD_MAX_RSS_BYTES:
    "resident memory past which requests are shed; `0` (off) by default: set it below the container's memory limit",
  OVERLOAD_MAX_EVENT_LOOP_UTILIZATION:
    'event-loop utilisation in per mille (`980` = 98%) past which requests are shed; `0` (off) by default',
  OVERLOAD_MAX_IN_FLIGHT:
    'API requests with a valid key, their body read, in progress at once in one process past which a new one is shed at once ([Overload](operations.md#overload)); this is the limit that bounds the latency of accepted requests; `0` turns it off',
  OVERLOAD_MAX_ANONYMOUS_IN_FLIGHT:
    'requests without a key or a console session (public pages and forms, payment-source events) at work at once past which a new one is shed; never counts or sheds a keyed API call; `0` turns it off',
  OVERLOAD_MAX_ANONYMOUS_PER_ADDRESS:
    "unauthenticated requests of one client address in progress at once (slow bodies still arriving included) past which a new one gets 429 `rate_limited`; set `TRUST_PROXY` behind a proxy, or every client is the proxy's one address; `0` turns it off",
  OVERLOAD_SAMPLE_INTERVAL_MS: 'how often the load is measured: shedding starts and ends at most this late',
  OVERLOAD_RETRY_AFTER_SECONDS: 'the `Retry-After` a shed request is given',
  TELEGRAM_API_URL:
    "the base of Telegram's Bot API that alerts are sent through (`{base}/bot{token}/sendMessage`): a local Bot API server, or a test's stand-in; held to the same private-address guard as webhooks",
};

/** Defaults of more than one word, with the code in them marked up (the registry shows them as plain text). */
const SHOWN: Record<string, string> = {
  LIVE_KEYS: '`approval` when `SIGNUP=open`, else `auto`',
};

function settings(): Setting<unknown, never>[] {
  return Object.values<Setting<unknown, never>>(SETTINGS as unknown as Record<string, Setting<unknown, never>>);
}

/** The table, header included, one row per registered setting. */
export function renderSettingsTable(): string {
  const names = new Set(settings().map((setting) => setting.name));
  const stray = [...Object.keys(MORE), ...Object.keys(SHOWN)].filter((name) => !names.has(name));
  if (stray.length > 0)
    throw new Error(`scripts/docs-config.ts describes settings the registry does not have: ${stray.join(', ')}`);
  const rows = settings().map((setting) => {
    const shown =
      SHOWN[setting.name] ??
      (setting.shown === 'unset' || setting.shown.includes(' ') ? setting.shown : `\`${setting.shown}\``);
    const meaning = MORE[setting.name] ?? setting.doc;
    if (meaning.includes('|') || meaning.includes('\n'))
      throw new Error(`the meaning of ${setting.name} cannot stand in a table cell`);
    return `| \`${setting.name}\` | ${shown} | ${meaning} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The page with the text between its markers replaced by the table. */
export function renderConfigurationDoc(page: string): string {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start < 0 || end < start)
    throw new Error(`docs/configuration.md lacks the table's markers (${TABLE_START} ... ${TABLE_END})`);
  return `${page.slice(0, start + TABLE_START.length)}\n${renderSettingsTable()}\n${page.slice(end)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(CONFIGURATION_DOC_PATH, renderConfigurationDoc(readFileSync(CONFIGURATION_DOC_PATH, 'utf8')));
  process.stdout.write(`wrote ${CONFIGURATION_DOC_PATH}\n`);
}
