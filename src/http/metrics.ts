import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { RequestMetrics } from './request-metrics.js';
import { AppError } from '../domain/errors.js';
import type { Deps } from '../services/deps.js';
import type { ShedStats } from './overload.js';

/**
 * Prometheus metrics on /metrics. Labels use the route pattern, never the raw URL, so their number stays
 * bounded whatever clients send. With METRICS_TOKEN set, scrapes must send it as a Bearer token.
 */
export function metricsRoutes(app: FastifyInstance, token: string | null, deps: Deps, shed: ShedStats): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Group commit (SQLite): read at scrape time from the database's batcher, nothing counted per request.
  new Counter({
    name: 'qris_group_commits_total',
    help: 'Group commits: database transactions that carried one or more units of work (one fsync each on SQLite)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(deps.db.commitStats.commits);
    },
  });
  new Counter({
    name: 'qris_group_commit_units_total',
    help: 'Units of work (one service write each) committed by group commits',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(deps.db.commitStats.units);
    },
  });
  // Batched creates: read at scrape time from the services' queue (create-batch.ts).
  new Counter({
    name: 'qris_create_batches_total',
    help: 'Batches of plain creates by outcome: committed, or failed as a whole (each create then made on its own)',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      const stats = deps.state.creates.stats;
      this.reset();
      this.inc({ outcome: 'committed' }, stats.batches);
      this.inc({ outcome: 'failed' }, stats.failed);
    },
  });
  new Counter({
    name: 'qris_batched_creates_total',
    help: 'Creates that went through a batch, by what it did with them: made, handed on to the one-by-one path, or refused (no code left)',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      const stats = deps.state.creates.stats;
      this.reset();
      this.inc({ outcome: 'made' }, stats.made);
      this.inc({ outcome: 'handed_on' }, stats.handedOn);
      this.inc({ outcome: 'refused' }, stats.refused);
    },
  });
  // Payment reports recorded together: read at scrape time from the services' queue (record-payment.ts).
  new Counter({
    name: 'qris_payment_report_batches_total',
    help: 'Batches of payment reports by outcome: committed, or failed as a whole (each report then recorded on its own)',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      const stats = deps.state.payments.stats;
      this.reset();
      this.inc({ outcome: 'committed' }, stats.batches);
      this.inc({ outcome: 'failed' }, stats.failed);
    },
  });
  new Counter({
    name: 'qris_payment_reports_total',
    help: 'Payment reports by how they were recorded: in a batch with others of their turn, or alone',
    labelNames: ['path'] as const,
    registers: [registry],
    collect() {
      const stats = deps.state.payments.stats;
      this.reset();
      this.inc({ path: 'batched' }, stats.reports);
      this.inc({ path: 'alone' }, stats.alone);
    },
  });
  // Load shedding (overload.ts): read at scrape time.
  new Counter({
    name: 'qris_requests_shed_total',
    help: 'Requests refused because the process was past an OVERLOAD_* limit (503 overloaded, or 429 for one address past its share)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(shed.shed);
    },
  });
  new Gauge({
    name: 'qris_requests_in_flight',
    help: 'Requests at work now: authenticated API calls (OVERLOAD_MAX_IN_FLIGHT) and unauthenticated ones (OVERLOAD_MAX_ANONYMOUS_IN_FLIGHT)',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      this.set({ pool: 'authenticated' }, shed.inFlight?.authenticated ?? 0);
      this.set({ pool: 'anonymous' }, shed.inFlight?.anonymous ?? 0);
    },
  });
  // Scheduled backups (workers/backup-scheduler.ts), read at scrape time from the services' state.
  new Gauge({
    name: 'qris_backup_last_success_timestamp',
    help: 'When the last scheduled backup of this process was verified and in place, in seconds since the epoch (0 before the first)',
    registers: [registry],
    collect() {
      const at = deps.state.backups.lastSuccessAt;
      this.set(at === null ? 0 : at / 1000);
    },
  });
  new Counter({
    name: 'qris_backup_failures_total',
    help: 'Scheduled backups that failed (copy, check or rename); each is logged',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(deps.state.backups.failures);
    },
  });
  // Counted per request in plain numbers, read by prom-client at scrape time (request-metrics.ts).
  const requests = new RequestMetrics(registry);
  // Callback style: no promise and microtask per request for synchronous work.
  app.addHook('onResponse', (request, reply, done) => {
    requests.record(
      request.routeOptions.url ?? 'unmatched',
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (token !== null) {
      const given = Buffer.from(String(request.headers.authorization ?? ''));
      const expected = Buffer.from(`Bearer ${token}`);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new AppError('invalid_api_key', 'metrics need the METRICS_TOKEN as a Bearer token');
      }
    }
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
