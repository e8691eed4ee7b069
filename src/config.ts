// Every setting is an environment variable (documented in one table in the README). Parsing is strict:
// a typo in a number is a start-up error, not a silent default.
import { resolve } from 'node:path';
import { booleanSetting, wholeNumberSetting, type Env } from './env-settings.js';
import { parseNetworkList, type IpNetwork } from './domain/ip-networks.js';
import { parseProxyTrust, type ProxyTrust } from './domain/proxy-trust.js';
import { MAX_QRIS_AMOUNT } from './domain/money.js';
import { mailSettings, type MailSettings } from './mail/settings.js';
import { sourceSettings, type SourceSettings } from './payment-sources/settings.js';
import { checkoutSettings, type CheckoutSettings } from './web/checkout-settings.js';
import { consoleSettings, type ConsoleSettings } from './web/console/console-settings.js';
import { paymentLinkSettings, type PaymentLinkSettings } from './web/payment-link-settings.js';

export type Role = 'api' | 'worker' | 'all';

export interface Config extends MailSettings, SourceSettings, CheckoutSettings, ConsoleSettings, PaymentLinkSettings {
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
  /** How long an idle keep-alive connection stays open (announced to clients in Keep-Alive: timeout=). */
  httpKeepAliveTimeoutMs: number;
  /** The longest a SIGTERM/SIGINT shutdown may take before the process exits anyway. */
  shutdownTimeoutMs: number;
}

const int = wholeNumberSetting;
const bool = booleanSetting;

function networks(env: Env, name: string): IpNetwork[] {
  try {
    return parseNetworkList(env[name] ?? '');
  } catch (err) {
    throw new Error(`${name}: ${(err as Error).message}`);
  }
}

/** DATABASE_URL unset means SQLite at ./data/qris-gateway.db. */
export function defaultDatabaseUrl(cwd = process.cwd()): string {
  return `sqlite:${resolve(cwd, 'data', 'qris-gateway.db')}`;
}

export function loadConfig(env: Env = process.env): Config {
  const config = readConfig(env);
  if (config.signup === 'open' && config.smtpUrl === null) {
    throw new Error('SIGNUP=open needs SMTP_URL and MAIL_FROM: sign-up links are sent by e-mail');
  }
  return config;
}

function readConfig(env: Env): Config {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const amountMax = int(env, 'AMOUNT_MAX', MAX_QRIS_AMOUNT, 1, MAX_QRIS_AMOUNT);
  const amountMin = int(env, 'AMOUNT_MIN', 1, 1, amountMax);
  const uniqueCodeMax = int(env, 'UNIQUE_CODE_MAX', 999, 0, 99_999);
  const uniqueCodeMin = int(env, 'UNIQUE_CODE_MIN', 1, 0, uniqueCodeMax);
  const expiresInMaxSeconds = int(env, 'EXPIRES_IN_MAX_SECONDS', 86_400, 60, 30 * 86_400);
  const expiresInMinSeconds = int(env, 'EXPIRES_IN_MIN_SECONDS', 60, 1, expiresInMaxSeconds);
  const transactionTtlSeconds = int(env, 'TRANSACTION_TTL_SECONDS', 900, expiresInMinSeconds, expiresInMaxSeconds);
  // Node refuses a header timeout longer than the whole request's.
  const httpHeadersTimeoutMs = int(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const httpRequestTimeoutMs = int(env, 'HTTP_REQUEST_TIMEOUT_MS', Math.max(30_000, httpHeadersTimeoutMs), httpHeadersTimeoutMs, 3_600_000);
  // An IPv6 literal needs brackets in a URL, or its colons read as the port separator.
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const publicBaseUrl = (env.PUBLIC_BASE_URL || `http://${shownHost}:${port}`).replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(publicBaseUrl)) throw new Error(`PUBLIC_BASE_URL must be an http(s) URL`);
  return {
    port,
    host,
    databaseUrl: env.DATABASE_URL || defaultDatabaseUrl(),
    publicBaseUrl,
    logLevel: env.LOG_LEVEL || 'info',
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 600, 0, 10_000_000),
    amountMin,
    amountMax,
    uniqueCodeMin,
    uniqueCodeMax,
    transactionTtlSeconds,
    expiresInMinSeconds,
    expiresInMaxSeconds,
    reservationGraceSeconds: int(env, 'RESERVATION_GRACE_SECONDS', 3600, 0, 30 * 86_400),
    sweepIntervalMs: int(env, 'SWEEP_INTERVAL_MS', 5000, 100, 3_600_000),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 16_384, 1024, 10_485_760),
    maxUrlLength: int(env, 'MAX_URL_LENGTH', 4096, 256, 65_536),
    trustProxy: parseProxyTrust(env.TRUST_PROXY),
    demoMerchant: bool(env, 'DEMO_MERCHANT', true),
    metricsToken: env.METRICS_TOKEN || null,
    snapPollIntervalMs: int(env, 'SNAP_POLL_INTERVAL_MS', 1000, 50, 3_600_000),
    snapPollMaxDelaySeconds: int(env, 'SNAP_POLL_MAX_DELAY_SECONDS', 60, 5, 3600),
    snapHttpTimeoutMs: int(env, 'SNAP_HTTP_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookDispatchIntervalMs: int(env, 'WEBHOOK_DISPATCH_INTERVAL_MS', 1000, 10, 3_600_000),
    webhookAllowNetworks: networks(env, 'WEBHOOK_ALLOW_NETWORKS'),
    httpHeadersTimeoutMs,
    httpRequestTimeoutMs,
    // Whole seconds at least: clients are told the time in seconds, and 0 would tell them not to reuse.
    httpKeepAliveTimeoutMs: int(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5000, 1000, 600_000),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 15_000, 100, 600_000),
    ...mailSettings(env),
    ...sourceSettings(env),
    ...checkoutSettings(env),
    ...consoleSettings(env),
    ...paymentLinkSettings(env),
    redisUrl: env.REDIS_URL || null,
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
  };
}
