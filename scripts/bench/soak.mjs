// @ts-check
// --soak: a long mixed load, the gateway's RSS sampled every 10 s to show whether it stays flat.
import { runLoad } from './load.mjs';
import { memoryOf, round } from './measure.mjs';
import { createTransactions, prepareDatabase, startGateway } from './servers.mjs';

export async function soak(kind, minutes, logChoice) {
  const database = await prepareDatabase(kind, `soak-${kind}`);
  // Logs still go through the real logger; /dev/null only spares the disk a multi-gigabyte file.
  const gateway = await startGateway(database, logChoice ?? '/dev/null');
  try {
    const prepared = await createTransactions(gateway, database.apiKey, 1000, (i) => 6_000_000 + i * 1000);
    const paths = prepared.map((t) => ({
      status: `/api/payment-gateway/cstatus?trxid=${t.id}`,
      png: `/api/payment-gateway/qr/${t.id}.png`,
    }));
    const seconds = Math.round(minutes * 60);
    process.stderr.write(`bench: ${kind}: soak for ${seconds} s (mixed create / read / list / QR), RSS every 10 s\n`);
    const samples = [];
    const started = Date.now();
    const timer = setInterval(() => {
      const m = memoryOf(gateway.pid);
      if (m) {
        samples.push({ s: Math.round((Date.now() - started) / 1000), rssMB: round(m.rss, 1) });
        process.stderr.write(`bench: soak ${samples.at(-1).s}s rss ${samples.at(-1).rssMB} MiB\n`);
      }
    }, 10_000);
    let result;
    try {
      result = await runLoad(gateway, {
        name: 'soak',
        kind: 'mixed',
        paths,
        duration: seconds,
        headers: { 'x-api-key': database.apiKey },
      });
    } finally {
      clearInterval(timer);
    }
    const third = Math.max(1, Math.floor(samples.length / 3));
    const mean = (xs) => xs.reduce((a, b) => a + b.rssMB, 0) / xs.length;
    const first = mean(samples.slice(0, third));
    const last = mean(samples.slice(-third));
    const growth = (last - first) / first;
    // "Flat": the last third's mean RSS within 10% of the first third's. Heap growth that is only
    // V8 sizing its young generation settles in the first minute; a leak keeps climbing.
    const { rssSamples, ...kept } = result;
    return {
      db: kind,
      minutes,
      ...kept,
      samples,
      firstThirdMB: round(first, 1),
      lastThirdMB: round(last, 1),
      growthPct: round(growth * 100, 1),
      flat: growth <= 0.1,
    };
  } finally {
    await gateway.stop();
  }
}
