import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../../../src/http/route-table.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';

// The table the every-route tests (hostile input, isolation) walk: it must hold every route of every scope.
describe('the route table', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      CONSOLE: 'true',
      SIGNUP: 'open',
      SMTP_URL: 'smtp://127.0.0.1:9',
      MAIL_FROM: 'gateway@example.com',
    });
  });
  afterAll(async () => t.close());

  it('lists the routes of the API, both mounts, the pages, the sources and the console scope', () => {
    const names = new Set(routeTable(t.app).map((r) => `${r.method} ${r.url}`));
    for (const wanted of [
      'GET /api/payment-gateway/cqris',
      'POST /api/api/payment-gateway/cqris',
      'GET /checkout/:trxid',
      'GET /pay/:handle/:amount',
      'POST /api/payment-sources/:source/events',
      'POST /snap/*',
      'POST /dashboard/login',
      'GET /dashboard/signup',
    ]) {
      expect(names, wanted).toContain(wanted);
    }
    expect(names.size).toBeGreaterThan(100);
  });

  it('carries the console routes that need no login', () => {
    const open = routeTable(t.app)
      .filter((r) => r.config.consolePublic === true && r.method === 'POST')
      .map((r) => r.url);
    expect(open).toContain('/dashboard/login');
    const merchants = routeTable(t.app).find((r) => r.url === '/dashboard/merchants' && r.method === 'GET');
    expect(merchants?.config.consolePublic).not.toBe(true);
  });
});
