// @ts-check
// The load generator, run by scripts/bench.mjs as a child process so that autocannon never shares an
// event loop (or a core's time slice accounting) with the server it measures. It reads one scenario
// spec (a JSON file named on the command line), runs autocannon once, and prints one JSON object.
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const headers = spec.headers ?? {};

// Fresh amounts: a prime stride over the allowed range puts consecutive requests far apart, so every
// request is a new amount and the reserved totals stay sparse, as they would for a real mix of prices
// (a stride of 1 would make each create scan the neighbours' 999-wide ranges, an artificial worst case).
const FRESH_BASE = 10_000;
const FRESH_SPAN = 9_000_000;
const FRESH_STRIDE = 7919;
let freshCounter = spec.freshOffset ?? 0;
const freshPath = () => {
  const amount = FRESH_BASE + ((freshCounter++ * FRESH_STRIDE) % FRESH_SPAN);
  return `/api/payment-gateway/cqris?amount=${amount}`;
};

function cycler(paths) {
  let i = 0;
  return () => paths[i++ % paths.length];
}

// Payment storm: alternately a payment that matches a pre-created transaction's total (each total used
// once, then only unmatched ones remain) and one of 1..999 rupiah, below every total the bench creates,
// so it can never match. Each is signed like a real sender: t=<unix>,v1=HMAC(secret, "<t>.<body>").
let stormCounter = 0;
const stormOutcomes = {};
function stormRequest(req) {
  const n = stormCounter++;
  const matchIndex = n >> 1;
  const matched = n % 2 === 0 && matchIndex < spec.totals.length;
  const amount = matched ? spec.totals[matchIndex] : 1 + (n % 999);
  const body = JSON.stringify({ id: `${spec.runId}-${n}`, amount: String(amount), paid_at: new Date().toISOString() });
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', spec.secret).update(`${t}.`).update(body).digest('hex');
  return {
    ...req,
    method: 'POST',
    path: spec.path,
    body,
    headers: { ...headers, 'content-type': 'application/json', 'x-signature': `t=${t},v1=${v1}` },
  };
}
function countOutcome(status, body) {
  let key = String(status);
  try {
    const parsed = JSON.parse(body);
    key = parsed.data?.status ?? parsed.error?.code ?? key;
  } catch {
    // not JSON: count the status code
  }
  stormOutcomes[key] = (stormOutcomes[key] ?? 0) + 1;
}

const accepted = [];
let shed = 0;
const percentile = (sorted, p) =>
  sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] * 10) / 10 : null;

function requestsFor(kind) {
  switch (kind) {
    case 'static':
      return [{ method: 'GET', path: spec.path }];
    case 'fresh':
      return [{ method: 'GET', setupRequest: (req) => ({ ...req, path: freshPath() }) }];
    case 'fresh-timed':
      // --overload: fresh creates, each timed from its send to its answer, so that the accepted ones' latency
      // is told apart from the shed ones' (autocannon's own histogram mixes both).
      return [
        {
          method: 'GET',
          setupRequest: (req, context) => {
            context.sentAt = performance.now();
            return { ...req, path: freshPath() };
          },
          onResponse: (status, _body, context) => {
            const ms = performance.now() - context.sentAt;
            if (status >= 200 && status < 300) accepted.push(ms);
            else if (status === 503) shed += 1;
          },
        },
      ];
    case 'fresh-client':
      // What @qris-gateway/client sends: a POST with a JSON body and an Idempotency-Key of its own
      // (`idempotent: false` leaves the key out, to tell the key's cost from the POST's).
      return [
        {
          method: 'POST',
          setupRequest: (req) => {
            const amount = new URL(freshPath(), 'http://x').searchParams.get('amount');
            return {
              ...req,
              path: '/api/payment-gateway/cqris',
              body: JSON.stringify({ amount: Number(amount) }),
              headers: {
                ...headers,
                'content-type': 'application/json',
                ...(spec.idempotent === false ? {} : { 'idempotency-key': randomUUID() }),
              },
            };
          },
        },
      ];
    case 'cycle': {
      const next = cycler(spec.paths);
      return [{ method: 'GET', setupRequest: (req) => ({ ...req, path: next() }) }];
    }
    case 'storm':
      return [{ method: 'POST', setupRequest: stormRequest, onResponse: countOutcome }];
    case 'mixed': {
      // Soak: each connection goes round create, read one, list, QR image.
      const byId = cycler(spec.paths.map((p) => p.status));
      const png = cycler(spec.paths.map((p) => p.png));
      return [
        { method: 'GET', setupRequest: (req) => ({ ...req, path: freshPath() }) },
        { method: 'GET', setupRequest: (req) => ({ ...req, path: byId() }) },
        { method: 'GET', path: '/api/payment-gateway/cstatus?limit=20' },
        { method: 'GET', setupRequest: (req) => ({ ...req, path: png() }) },
      ];
    }
    default:
      throw new Error(`unknown scenario kind ${kind}`);
  }
}

const options = {
  url: spec.url,
  connections: spec.connections,
  headers,
  requests: requestsFor(spec.kind),
  // A stuck server must not hang the bench: a request waiting longer than this counts as a timeout.
  timeout: 10,
};
// A request-capped run ends only at autocannon's next one-second tick, so its wall time says nothing:
// there the elapsed time is up to the last response, stamped by an onResponse hook (hooks make
// autocannon keep bodies, so duration runs without one are left alone).
let lastResponseAt = null;
if (spec.amount) {
  options.amount = spec.amount;
  options.requests = options.requests.map((r) => ({
    ...r,
    onResponse: (...a) => {
      lastResponseAt = performance.now();
      r.onResponse?.(...a);
    },
  }));
} else {
  options.duration = spec.duration;
}
// An open loop at this many requests per second in all (--overload), as long as the connections suffice.
if (spec.rate) options.overallRate = spec.rate;

function timedSummary() {
  const sorted = accepted.sort((a, b) => a - b);
  return { accepted: sorted.length, shed, acceptedMs: { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) } };
}

// Timed here, not from autocannon's result.duration, which is coarse (whole ~10 ms steps) and makes the
// one-second capped run read the same every time.
const started = performance.now();
const cpuAtStart = process.cpuUsage();
const result = await autocannon(options);
const ownCpu = process.cpuUsage(cpuAtStart);
const seconds = ((lastResponseAt ?? performance.now()) - started) / 1000;
const total = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
process.stdout.write(
  `${JSON.stringify({
    requests: total,
    seconds: Number(seconds.toFixed(3)),
    // Total over elapsed time rather than autocannon's per-second average, which misreads runs
    // shorter than a few seconds (the request-capped hot-amount scenario).
    reqPerSec: seconds > 0 ? total / seconds : 0,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.mean,
    },
    ok2xx: result['2xx'],
    non2xx: result.non2xx,
    statusCodes: result.statusCodeStats,
    errors: result.errors,
    timeouts: result.timeouts,
    // The load generator's own CPU per request: on two cores it competes with the server, so a ratio
    // to the baseline depends on it too.
    loadGeneratorCpuUsPerReq: total > 0 ? Math.round((ownCpu.user + ownCpu.system) / total) : null,
    ...(spec.kind === 'storm' ? { outcomes: stormOutcomes } : {}),
    ...(spec.kind === 'fresh-timed' ? timedSummary() : {}),
  })}\n`,
);
