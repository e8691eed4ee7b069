import { Counter, Histogram, type Registry } from 'prom-client';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** One (route, method, status): how many requests it answered. */
interface Answered {
  labels: { route: string; method: string; status: string };
  count: number;
}

/** One route's request durations: per bucket (the last is +Inf, past every bound), their sum and count. */
interface Timed {
  route: string;
  perBucket: number[];
  sum: number;
  count: number;
}

/**
 * `qris_http_requests_total` (by route pattern, method and status) and `qris_http_request_duration_seconds`
 * (by route pattern), counted in plain numbers per request and handed to prom-client when /metrics is
 * read. prom-client's own labelled counter and histogram check and join their label values on every call:
 * 21,000 of the ~430,000 instructions of a status read (callgrind, `npm run ab:instructions`); here a
 * request costs two Map lookups and a few additions. The text /metrics shows is prom-client's, the same
 * as those two metrics would write (test/unit/request-metrics.test.ts compares them).
 */
export class RequestMetrics {
  readonly #answered = new Map<string, Answered>();
  readonly #timed = new Map<string, Timed>();

  constructor(registry: Registry) {
    const answered = this.#answered;
    new Counter({
      name: 'qris_http_requests_total',
      help: 'HTTP requests by route pattern, method and status',
      labelNames: ['route', 'method', 'status'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const a of answered.values()) this.inc(a.labels, a.count);
      },
    });
    registry.registerMetric(new RouteDurations(this.#timed));
  }

  /** A request of `route` (its pattern) answered with `status` after `seconds`. */
  record(route: string, method: string, status: number, seconds: number): void {
    const key = `${route} ${method} ${status}`;
    const a = this.#answered.get(key);
    if (a) a.count += 1;
    else this.#answered.set(key, { labels: { route, method, status: String(status) }, count: 1 });
    let t = this.#timed.get(route);
    if (!t) {
      t = { route, perBucket: new Array<number>(BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
      this.#timed.set(route, t);
    }
    let b = 0;
    while (b < BUCKETS.length && seconds > BUCKETS[b]!) b++;
    t.perBucket[b]! += 1;
    t.sum += seconds;
    t.count += 1;
  }
}

/**
 * The duration histogram, its values read from RequestMetrics' numbers. prom-client writes /metrics from
 * getForPromString() (and builds get() from it), in this layout: per route, each bucket's cumulative count
 * labelled `le`, then +Inf, _sum and _count, the route as a shared label. test/unit/request-metrics.test.ts
 * holds the text and JSON to prom-client's own histogram, so a prom-client that lays them out otherwise
 * fails there.
 */
class RouteDurations extends Histogram<'route'> {
  readonly #timed: ReadonlyMap<string, Timed>;

  constructor(timed: ReadonlyMap<string, Timed>) {
    super({
      name: 'qris_http_request_duration_seconds',
      help: 'HTTP request duration by route pattern',
      labelNames: ['route'] as const,
      buckets: BUCKETS,
      registers: [],
    });
    this.#timed = timed;
  }

  async getForPromString(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: {
      labels: Record<string, string | number>;
      sharedLabels: { route: string };
      value: number;
      metricName: string;
    }[];
  }> {
    const name = 'qris_http_request_duration_seconds';
    const values = [];
    for (const t of this.#timed.values()) {
      const route = { route: t.route };
      let cumulative = 0;
      for (const [i, le] of BUCKETS.entries()) {
        cumulative += t.perBucket[i]!;
        values.push({
          labels: { le },
          sharedLabels: route,
          value: cumulative,
          metricName: `${name}_bucket`,
          exemplar: null,
        });
      }
      values.push({
        labels: { le: '+Inf' },
        sharedLabels: route,
        value: t.count,
        metricName: `${name}_bucket`,
        exemplar: null,
      });
      values.push({ labels: {}, sharedLabels: route, value: t.sum, metricName: `${name}_sum` });
      values.push({ labels: {}, sharedLabels: route, value: t.count, metricName: `${name}_count` });
    }
    return { name, help: 'HTTP request duration by route pattern', type: 'histogram', aggregator: 'sum', values };
  }
}
