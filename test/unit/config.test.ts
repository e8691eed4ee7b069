import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDatabaseUrl, loadConfig } from '../../src/config.js';
import { sqlitePathFromUrl } from '../../src/storage/database.js';

describe('loadConfig defaults', () => {
  const config = loadConfig({});

  it('serves on 127.0.0.1:3000', () => {
    expect(config.port).toBe(3000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.publicBaseUrl).toBe('http://127.0.0.1:3000');
  });

  it('stores in SQLite at ./data/qris-gateway.db', () => {
    expect(config.databaseUrl).toBe(`sqlite:${resolve(process.cwd(), 'data', 'qris-gateway.db')}`);
    expect(config.databaseUrl).toBe(defaultDatabaseUrl());
    expect(sqlitePathFromUrl(config.databaseUrl)).toBe(resolve('data/qris-gateway.db'));
    expect(defaultDatabaseUrl('/srv/gw')).toBe('sqlite:/srv/gw/data/qris-gateway.db');
  });

  it('has the documented transaction limits', () => {
    expect(config.transactionTtlSeconds).toBe(900);
    expect(config.uniqueCodeMin).toBe(1);
    expect(config.uniqueCodeMax).toBe(999);
    expect(config.amountMin).toBe(1);
    expect(config.amountMax).toBe(10_000_000);
    expect(config.rateLimitPerMinute).toBe(600);
    expect(config.demoMerchant).toBe(true);
    expect(config.trustProxy).toEqual({ hops: 0 });
    expect(config.paymentLinkDailyCreates).toBe(500);
  });

  it('has the documented server timeouts and shutdown bound', () => {
    expect(config.httpHeadersTimeoutMs).toBe(10_000);
    expect(config.httpRequestTimeoutMs).toBe(30_000);
    expect(config.httpKeepAliveTimeoutMs).toBe(5000);
    expect(config.shutdownTimeoutMs).toBe(15_000);
  });

  it('treats an empty variable as unset', () => {
    const c = loadConfig({ PORT: '', HOST: '', DATABASE_URL: '', TRANSACTION_TTL_SECONDS: '', PUBLIC_BASE_URL: '' });
    expect(c.port).toBe(3000);
    expect(c.host).toBe('127.0.0.1');
    expect(c.databaseUrl).toBe(defaultDatabaseUrl());
    expect(c.transactionTtlSeconds).toBe(900);
    expect(c.publicBaseUrl).toBe('http://127.0.0.1:3000');
  });
});

describe('loadConfig reads the environment', () => {
  it('takes valid values', () => {
    const c = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'sqlite:/tmp/x.db',
      RATE_LIMIT_PER_MINUTE: '0',
      UNIQUE_CODE_MIN: '5',
      UNIQUE_CODE_MAX: '9',
      TRANSACTION_TTL_SECONDS: '600',
      AMOUNT_MAX: '5000000',
      TRUST_PROXY: 'yes',
      DEMO_MERCHANT: 'false',
    });
    expect(c.port).toBe(8080);
    expect(c.host).toBe('0.0.0.0');
    expect(c.databaseUrl).toBe('sqlite:/tmp/x.db');
    // 0 turns rate limits off; it must not be mistaken for "unset".
    expect(c.rateLimitPerMinute).toBe(0);
    expect([c.uniqueCodeMin, c.uniqueCodeMax]).toEqual([5, 9]);
    expect(c.transactionTtlSeconds).toBe(600);
    expect(c.amountMax).toBe(5_000_000);
    // issue 23, finding 4: "yes" (like true) is one proxy hop, never the whole X-Forwarded-For header.
    expect(c.trustProxy).toEqual({ hops: 1 });
    expect(c.demoMerchant).toBe(false);
  });

  it('lets the request timeout default follow a longer header timeout', () => {
    const c = loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '45000' });
    expect([c.httpHeadersTimeoutMs, c.httpRequestTimeoutMs]).toEqual([45_000, 45_000]);
  });

  it('accepts a unique-code range of one value', () => {
    const c = loadConfig({ UNIQUE_CODE_MIN: '7', UNIQUE_CODE_MAX: '7' });
    expect([c.uniqueCodeMin, c.uniqueCodeMax]).toEqual([7, 7]);
  });
});

describe('loadConfig is strict', () => {
  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /PORT must be a whole number/],
    [{ PORT: '3000 ' }, /PORT/],
    [{ PORT: ' 3000' }, /PORT/],
    [{ PORT: '3e3' }, /PORT/],
    [{ PORT: '3000.0' }, /PORT/],
    [{ PORT: '0x10' }, /PORT/],
    [{ PORT: '+80' }, /PORT/],
    [{ PORT: '65536' }, /PORT must be between 0 and 65535/],
    [{ PORT: '99999999999999999999999' }, /PORT must be between/],
    [{ RATE_LIMIT_PER_MINUTE: '-1' }, /RATE_LIMIT_PER_MINUTE must be a whole number/],
    [{ RATE_LIMIT_PER_MINUTE: '10/s' }, /RATE_LIMIT_PER_MINUTE/],
    [{ UNIQUE_CODE_MIN: '9', UNIQUE_CODE_MAX: '5' }, /UNIQUE_CODE_MIN must be between 0 and 5/],
    [{ UNIQUE_CODE_MAX: 'many' }, /UNIQUE_CODE_MAX/],
    [{ TRANSACTION_TTL_SECONDS: '30' }, /TRANSACTION_TTL_SECONDS must be between 60 and 86400/],
    [{ TRANSACTION_TTL_SECONDS: '15m' }, /TRANSACTION_TTL_SECONDS/],
    [{ AMOUNT_MAX: '10000001' }, /AMOUNT_MAX/],
    [{ AMOUNT_MAX: '0' }, /AMOUNT_MAX/],
    [{ AMOUNT_MIN: '100', AMOUNT_MAX: '50' }, /AMOUNT_MIN/],
    [{ TRUST_PROXY: 'maybe' }, /TRUST_PROXY must be false, true \(one proxy\), a number of proxy hops/],
    [{ TRUST_PROXY: '11' }, /TRUST_PROXY .*hop count is 0 to 10/],
    [{ TRUST_PROXY: '10.0.0.1/8' }, /TRUST_PROXY .*host bits set/],
    [{ DEMO_MERCHANT: '2' }, /DEMO_MERCHANT/],
    [{ PUBLIC_BASE_URL: 'pay.example.com' }, /PUBLIC_BASE_URL must be an http\(s\) URL/],
    [{ PUBLIC_BASE_URL: 'ftp://pay.example.com' }, /PUBLIC_BASE_URL/],
    // Node refuses a header timeout longer than the request's.
    [
      { HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' },
      /HTTP_REQUEST_TIMEOUT_MS must be between 20000/,
    ],
    // Clients are told the keep-alive time in whole seconds; 0 would tell them not to reuse a connection.
    [{ HTTP_KEEP_ALIVE_TIMEOUT_MS: '500' }, /HTTP_KEEP_ALIVE_TIMEOUT_MS must be between 1000/],
    [{ SHUTDOWN_TIMEOUT_MS: '10s' }, /SHUTDOWN_TIMEOUT_MS must be a whole number/],
    // issue 23, finding 5: the links' daily cap cannot be turned off.
    [{ PAYMENT_LINK_DAILY_CREATES: '0' }, /PAYMENT_LINK_DAILY_CREATES must be between 1 and 10000000/],
  ];
  it.each(bad)('rejects %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('PUBLIC_BASE_URL', () => {
  it('is derived from HOST and PORT by default', () => {
    expect(loadConfig({ HOST: '10.1.2.3', PORT: '8443' }).publicBaseUrl).toBe('http://10.1.2.3:8443');
    expect(loadConfig({ HOST: 'gateway.internal' }).publicBaseUrl).toBe('http://gateway.internal:3000');
  });

  it('shows a wildcard bind address as localhost', () => {
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '8080' }).publicBaseUrl).toBe('http://localhost:8080');
    expect(loadConfig({ HOST: '::', PORT: '8080' }).publicBaseUrl).toBe('http://localhost:8080');
  });

  it('brackets an IPv6 host so the derived URL is a valid URL', () => {
    const url = loadConfig({ HOST: '::1', PORT: '8080' }).publicBaseUrl;
    expect(url).toBe('http://[::1]:8080');
    expect(new URL(url).port).toBe('8080');
  });

  it('is taken as given, without trailing slashes', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://pay.example.com' }).publicBaseUrl).toBe('https://pay.example.com');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://pay.example.com/' }).publicBaseUrl).toBe('https://pay.example.com');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://pay.example.com/gw///' }).publicBaseUrl).toBe(
      'https://pay.example.com/gw',
    );
    // An explicit URL wins over HOST/PORT (a proxy in front).
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '8080', PUBLIC_BASE_URL: 'http://shop.test/' }).publicBaseUrl).toBe(
      'http://shop.test',
    );
  });
});
