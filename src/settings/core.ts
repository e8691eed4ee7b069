// The settings of the process as a whole (listening, the database, limits of the API, workers' pace,
// backups): declared here, beside the settings of each area (the other files of src/settings), and
// gathered with them into one registry by all.ts.
import { resolve } from 'node:path';
import { parseNetworkList, type IpNetwork } from '../domain/ip-networks.js';
import { MAX_QRIS_AMOUNT } from '../domain/money.js';
import { parseProxyTrust, type ProxyTrust } from '../domain/proxy-trust.js';
import { flag, optionalText, text, wholeNumber, type Env, type Get, type SettingsOf } from './kit.js';

export interface CoreSettings {
  /** The settings file read under the environment (env-file.ts reads the variable itself, before parsing). */
  envFile: string | null;
  port: number;
  host: string;
  databaseUrl: string;
  publicBaseUrl: string;
  logLevel: string;
  rateLimitPerMinute: number;
  amountMin: number;
  amountMax: number;
  uniqueCodeMin: number;
  uniqueCodeMax: number;
  transactionTtlSeconds: number;
  expiresInMinSeconds: number;
  expiresInMaxSeconds: number;
  reservationGraceSeconds: number;
  /** The most refunds one transaction may have, of any status (issue 35, finding 2). */
  refundMaxPerTransaction: number;
  /** A payer gets at most one refund notice per transaction in this many seconds (issue 35, finding 2). */
  refundNoticeWindowSeconds: number;
  sweepIntervalMs: number;
  bodyLimitBytes: number;
  maxUrlLength: number;
  /** Which proxies in front may name the client (X-Forwarded-For): a hop count or their addresses. */
  trustProxy: ProxyTrust;
  demoMerchant: boolean;
  metricsToken: string | null;
  /** Shared rate limits across instances when set; in-memory limits otherwise. */
  redisUrl: string | null;
  /** PostgreSQL connections per process. */
  databasePoolSize: number;
  databaseConnectTimeoutMs: number;
  databaseQueryTimeoutMs: number;
  /** SNAP BI acquirer source: query-poll worker tick, longest gap between polls, acquirer HTTP timeout. */
  snapPollIntervalMs: number;
  snapPollMaxDelaySeconds: number;
  snapHttpTimeoutMs: number;
  webhookTimeoutMs: number;
  webhookDispatchIntervalMs: number;
  /** Networks webhooks may reach although the SSRF guard would refuse them (loopback receivers in tests). */
  webhookAllowNetworks: IpNetwork[];
  /** How long a client may take to send a request's headers, and the whole request. */
  httpHeadersTimeoutMs: number;
  httpRequestTimeoutMs: number;
  httpBodyTimeoutMs: number;
  /** How long an idle keep-alive connection stays open (announced to clients in Keep-Alive: timeout=). */
  httpKeepAliveTimeoutMs: number;
  /** The longest a SIGTERM/SIGINT shutdown may take before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** SQLite: the folder scheduled backups are written to; null means no scheduled backups. */
  backupDir: string | null;
  /** Hours between two scheduled backups (fractions allowed, for tests and busy sites). */
  backupIntervalHours: number;
  /** How many scheduled backups are kept in BACKUP_DIR; older ones are removed. */
  backupKeep: number;
}

const int = wholeNumber<CoreSettings>;

/** DATABASE_URL unset means SQLite at ./data/qris-gateway.db. */
export function defaultDatabaseUrl(cwd = process.cwd()): string {
  return `sqlite:${resolve(cwd, 'data', 'qris-gateway.db')}`;
}

// The one derivation of the links' base, for the server and every CLI command alike (both read it from
// the same settings: the environment, then `.env`, then the defaults): PUBLIC_BASE_URL, else HOST and PORT.
function publicBaseUrl(raw: string | undefined, get: Get<CoreSettings>): string {
  const host = get('host');
  // An IPv6 literal needs brackets in a URL, or its colons read as the port separator.
  const shownHost =
    host === '0.0.0.0' || host === '::'
      ? 'localhost'
      : host.includes(':') && !host.startsWith('[')
        ? `[${host}]`
        : host;
  const url = (raw || `http://${shownHost}:${get('port')}`).replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(url)) throw new Error(`PUBLIC_BASE_URL must be an http(s) URL`);
  return url;
}

/**
 * Which settings the links' base was made of, for a process that cannot know the server's own (a CLI
 * command beside a server started with `PORT=4301 npm start`): null when PUBLIC_BASE_URL is set, else the
 * names of HOST and PORT that are set (none: both defaults). Empty counts as unset, as when parsing.
 */
export function publicBaseUrlGuessedFrom(env: Env): string[] | null {
  if (env.PUBLIC_BASE_URL) return null;
  return [coreSettings.host.name, coreSettings.port.name].filter((name) => !!env[name]);
}

export const coreSettings = {
  envFile: optionalText(
    'ENV_FILE',
    'the settings file read under the environment (the environment wins), required to exist when set; unset means .env in the working folder, if there is one',
  ),
  port: int('PORT', 'HTTP port', 3000, 0, 65535),
  host: text('HOST', 'address to listen on', '127.0.0.1'),
  databaseUrl: {
    name: 'DATABASE_URL',
    shown: 'sqlite:./data/qris-gateway.db',
    doc: 'sqlite:<path> or postgres://...',
    read: (raw) => raw || defaultDatabaseUrl(),
  },
  publicBaseUrl: {
    name: 'PUBLIC_BASE_URL',
    shown: 'http://HOST:PORT',
    doc: 'base of the URLs payers are given',
    read: publicBaseUrl,
  },
  logLevel: text('LOG_LEVEL', 'pino log level', 'info'),
  rateLimitPerMinute: int(
    'RATE_LIMIT_PER_MINUTE',
    'requests per key per minute; 0 turns limits off',
    600,
    0,
    10_000_000,
  ),
  amountMin: int('AMOUNT_MIN', 'smallest amount', 1, 1, (get) => get('amountMax')),
  amountMax: int('AMOUNT_MAX', 'largest total including the unique code', MAX_QRIS_AMOUNT, 1, MAX_QRIS_AMOUNT),
  uniqueCodeMin: int('UNIQUE_CODE_MIN', 'smallest unique code added to amounts', 1, 0, (get) => get('uniqueCodeMax')),
  uniqueCodeMax: int('UNIQUE_CODE_MAX', 'largest unique code; a price gets at most max(99, 1% of it)', 999, 0, 99_999),
  transactionTtlSeconds: int(
    'TRANSACTION_TTL_SECONDS',
    'default expiry',
    900,
    (get) => get('expiresInMinSeconds'),
    (get) => get('expiresInMaxSeconds'),
  ),
  expiresInMinSeconds: int('EXPIRES_IN_MIN_SECONDS', 'smallest expires_in', 60, 1, (get) => get('expiresInMaxSeconds')),
  expiresInMaxSeconds: int('EXPIRES_IN_MAX_SECONDS', 'largest expires_in', 86_400, 60, 30 * 86_400),
  reservationGraceSeconds: int(
    'RESERVATION_GRACE_SECONDS',
    'how long a total stays reserved after expiry',
    3600,
    0,
    30 * 86_400,
  ),
  refundMaxPerTransaction: int(
    'REFUND_MAX_PER_TRANSACTION',
    'the most refunds one transaction may have, failed ones included (409 refund_limit_reached past it)',
    20,
    1,
    10_000,
  ),
  refundNoticeWindowSeconds: int(
    'REFUND_NOTICE_WINDOW_SECONDS',
    'a payer gets at most one refund notice per transaction in this many seconds; later refunds are told together in the next',
    3600,
    60,
    7 * 86_400,
  ),
  sweepIntervalMs: int('SWEEP_INTERVAL_MS', 'how often expired transactions are swept', 5000, 100, 3_600_000),
  bodyLimitBytes: int('BODY_LIMIT_BYTES', 'largest request body', 16_384, 1024, 10_485_760),
  maxUrlLength: int('MAX_URL_LENGTH', 'longest request URL', 4096, 256, 65_536),
  trustProxy: {
    name: 'TRUST_PROXY',
    shown: 'false',
    doc: 'the proxies whose X-Forwarded-For names the client',
    read: (raw) => parseProxyTrust(raw),
  },
  demoMerchant: flag('DEMO_MERCHANT', 'create the sandbox merchant and key on an empty database', true),
  metricsToken: optionalText('METRICS_TOKEN', 'when set, /metrics requires it as a bearer token'),
  redisUrl: optionalText(
    'REDIS_URL',
    'rate limits shared by every instance through this Redis (held per instance while it is unreachable)',
  ),
  databasePoolSize: int('DATABASE_POOL_SIZE', 'PostgreSQL connections per process', 10, 1, 1000),
  databaseQueryTimeoutMs: int(
    'DATABASE_QUERY_TIMEOUT_MS',
    'a PostgreSQL query unanswered this long has its connection ended (database_unavailable); 0 never',
    30_000,
    0,
    3_600_000,
  ),
  databaseConnectTimeoutMs: int(
    'DATABASE_CONNECT_TIMEOUT_MS',
    'how long a request waits for a PostgreSQL connection before answering database_unavailable',
    5000,
    100,
    120_000,
  ),
  snapPollIntervalMs: int(
    'SNAP_POLL_INTERVAL_MS',
    'how often the SNAP query poller looks for due polls',
    1000,
    50,
    3_600_000,
  ),
  snapPollMaxDelaySeconds: int(
    'SNAP_POLL_MAX_DELAY_SECONDS',
    'longest gap between two queries of one open SNAP transaction',
    60,
    5,
    3600,
  ),
  snapHttpTimeoutMs: int('SNAP_HTTP_TIMEOUT_MS', 'timeout of each call to a SNAP acquirer', 10_000, 100, 120_000),
  webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 'how long one webhook POST may take', 10_000, 100, 120_000),
  webhookDispatchIntervalMs: int(
    'WEBHOOK_DISPATCH_INTERVAL_MS',
    'how often the dispatcher looks for due deliveries',
    1000,
    10,
    3_600_000,
  ),
  webhookAllowNetworks: {
    name: 'WEBHOOK_ALLOW_NETWORKS',
    shown: 'unset',
    doc: 'CIDRs webhooks and feeds may reach although the SSRF guard would refuse them',
    read(raw) {
      try {
        return parseNetworkList(raw ?? '');
      } catch (err) {
        throw new Error(`WEBHOOK_ALLOW_NETWORKS: ${(err as Error).message}`);
      }
    },
  },
  httpHeadersTimeoutMs: int(
    'HTTP_HEADERS_TIMEOUT_MS',
    "how long a client may take to send a request's headers",
    10_000,
    100,
    600_000,
  ),
  // Node refuses a header timeout longer than the whole request's.
  httpRequestTimeoutMs: int(
    'HTTP_REQUEST_TIMEOUT_MS',
    'how long a client may take to send a whole request',
    (get) => Math.max(30_000, get('httpHeadersTimeoutMs')),
    (get) => get('httpHeadersTimeoutMs'),
    3_600_000,
    '30000',
  ),
  // A body is a few KB: a client that has not sent it this long after its headers holds a socket for
  // nothing. Far shorter than the whole request's time; a logged-in console user's upload (a photo of up
  // to 15 MB from a phone) keeps HTTP_REQUEST_TIMEOUT_MS.
  httpBodyTimeoutMs: int(
    'HTTP_BODY_TIMEOUT_MS',
    "how long a client without a console session may take to send a request's body after its headers",
    (get) => Math.min(10_000, get('httpRequestTimeoutMs')),
    100,
    (get) => get('httpRequestTimeoutMs'),
    '10000',
  ),
  // Whole seconds at least: clients are told the time in seconds, and 0 would tell them not to reuse.
  httpKeepAliveTimeoutMs: int(
    'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    'how long an idle keep-alive connection stays open',
    5000,
    1000,
    600_000,
  ),
  shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', 'the longest a SIGTERM/SIGINT shutdown may take', 15_000, 100, 600_000),
  backupDir: optionalText('BACKUP_DIR', 'SQLite: folder for scheduled backups; unset means none'),
  backupIntervalHours: {
    name: 'BACKUP_INTERVAL_HOURS',
    shown: '24',
    doc: 'hours between two scheduled backups',
    read(raw) {
      if (raw === undefined || raw === '') return 24;
      // A fraction is allowed (0.5 is every half hour); at least 0.0001 h (0.36 s), at most a year.
      if (!/^[0-9]+(\.[0-9]+)?$/.test(raw))
        throw new Error(`BACKUP_INTERVAL_HOURS must be a number of hours, got ${JSON.stringify(raw)}`);
      const hours = Number(raw);
      if (hours < 0.0001 || hours > 8760)
        throw new Error(`BACKUP_INTERVAL_HOURS must be between 0.0001 and 8760, got ${hours}`);
      return hours;
    },
  },
  backupKeep: int('BACKUP_KEEP', 'how many scheduled backups are kept', 7, 1, 10_000),
} satisfies SettingsOf<CoreSettings>;
