// RequestMetrics (src/http/request-metrics.ts) counts requests in plain numbers and hands them to
// prom-client at scrape time: /metrics must read exactly as prom-client's own labelled counter and histogram
// would have written it for the same requests.
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestMetrics } from '../../src/http/request-metrics.js';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** The two metrics as prom-client itself keeps them, fed one call per request. */
function promClientOwn(registry: Registry) {
  const requests = new Counter({
    name: 'qris_http_requests_total',
    help: 'HTTP requests by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'qris_http_request_duration_seconds',
    help: 'HTTP request duration by route pattern',
    labelNames: ['route'] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  return (route: string, method: string, status: number, seconds: number) => {
    requests.labels({ route, method, status: String(status) }).inc();
    duration.labels({ route }).observe(seconds);
  };
}

const request = fc.record({
  route: fc.constantFrom(
    '/api/payment-gateway/cqris',
    '/api/payment-gateway/qr/:file',
    'unmatched',
    '/odd "route"\\\n',
  ),
  method: fc.constantFrom('GET', 'POST', 'HEAD'),
  status: fc.constantFrom(200, 201, 401, 404, 503),
  // Bounds themselves, and times between and beyond them.
  seconds: fc.oneof(fc.constantFrom(0, ...BUCKETS), fc.double({ min: 0, max: 10, noNaN: true })),
});

describe('request metrics', () => {
  it('read as prom-client would have written them, for any requests', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(request, { maxLength: 60 }), async (requests) => {
        const ours = new Registry();
        const theirs = new Registry();
        const metrics = new RequestMetrics(ours);
        const observe = promClientOwn(theirs);
        for (const r of requests) {
          metrics.record(r.route, r.method, r.status, r.seconds);
          observe(r.route, r.method, r.status, r.seconds);
        }
        expect(await ours.metrics()).toBe(await theirs.metrics());
        expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
      }),
      { numRuns: 200 },
    );
  });

  it('a scrape reads the counts of that moment, and later requests add to them', async () => {
    const registry = new Registry();
    const metrics = new RequestMetrics(registry);
    metrics.record('/r', 'GET', 200, 0.002);
    expect(await registry.metrics()).toContain('qris_http_requests_total{route="/r",method="GET",status="200"} 1');
    metrics.record('/r', 'GET', 200, 0.2);
    const text = await registry.metrics();
    expect(text).toContain('qris_http_requests_total{route="/r",method="GET",status="200"} 2');
    expect(text).toContain('qris_http_request_duration_seconds_bucket{le="0.0025",route="/r"} 1');
    expect(text).toContain('qris_http_request_duration_seconds_bucket{le="+Inf",route="/r"} 2');
    expect(text).toContain('qris_http_request_duration_seconds_count{route="/r"} 2');
  });
});
