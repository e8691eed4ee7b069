// A merchant's create latency while a crowd holds slow anonymous requests open (issue 35, finding 1).
//
//   npx tsx scripts/held-anonymous.ts --url http://127.0.0.1:3000 --key sk_live_... [--held 300] [--creates 200]
//
// Against a running gateway (any build: that is how a before/after is measured). First `--creates`
// creates with the key, 20 at a time, from 127.0.0.1 with nobody else; then the same while `--held`
// connections from 127.0.0.2 each send the headers of a POST (no key, a bogus key, the login form in
// turn) with `Content-Length: 10000` and only the first bytes of the body. Prints the creates' statuses
// and latencies (p50, p99, max) in both phases, and what the held connections were answered.
import net from 'node:net';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:3000' },
    key: { type: 'string' },
    held: { type: 'string', default: '300' },
    creates: { type: 'string', default: '200' },
    from: { type: 'string', default: '127.0.0.2' },
  },
});
if (!values.key) throw new Error('--key sk_live_... (or sk_test_...) is required');
const base = new URL(values.url);
const port = Number(base.port || 80);

const HEADS = [
  'POST /api/payment-gateway/cqris HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{"amount":',
  `POST /api/payment-gateway/cqris HTTP/1.1\r\nHost: x\r\nX-Api-Key: sk_live_${'x'.repeat(40)}\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{"amount":`,
  'POST /dashboard/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000\r\n\r\nemail=a%40b.c&password=',
];

function hold(head: string): { socket: net.Socket; answer: Promise<string> } {
  const socket = net.connect({ port, host: base.hostname, localAddress: values.from });
  let first = '';
  socket.on('data', (c: Buffer) => {
    if (first === '') first = c.toString('latin1').split('\r\n', 1)[0] ?? '';
  });
  socket.on('error', () => {});
  socket.write(head);
  return {
    socket,
    answer: new Promise((resolve) => socket.on('close', () => resolve(first || '(closed, no answer)'))),
  };
}

async function creates(count: number, amountFrom: number) {
  const statuses = new Map<number, number>();
  const times: number[] = [];
  for (let i = 0; i < count; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, count - i) }, async (_, j) => {
        const started = performance.now();
        const res = await fetch(new URL('/api/payment-gateway/cqris', base), {
          method: 'POST',
          headers: { 'x-api-key': values.key!, 'content-type': 'application/json' },
          body: JSON.stringify({ amount: amountFrom + i + j }),
        });
        await res.arrayBuffer();
        times.push(performance.now() - started);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }),
    );
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
  return `statuses ${JSON.stringify(Object.fromEntries(statuses))}, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${times.at(-1)!.toFixed(1)} ms`;
}

const amountFrom = 10_000 + Math.floor(Math.random() * 50_000);
console.log(`alone:          ${await creates(Number(values.creates), amountFrom)}`);
const crowd = Array.from({ length: Number(values.held) }, (_, i) => hold(HEADS[i % HEADS.length]!));
const answered = new Map<string, number>();
for (const h of crowd) void h.answer.then((line) => answered.set(line, (answered.get(line) ?? 0) + 1));
// Long enough for the server to have read every connection's headers.
await new Promise((r) => setTimeout(r, 500));
console.log(`with ${values.held} held: ${await creates(Number(values.creates), amountFrom + 100_000)}`);
console.log(
  `held connections answered so far: ${JSON.stringify(Object.fromEntries(answered))}; still open: ${crowd.filter((h) => !h.socket.destroyed).length}`,
);
for (const h of crowd) h.socket.destroy();
