// Waiting for a transaction to reach a final state: on the gateway's live status stream (the one its
// checkout page uses), and by polling cstatus with a growing interval while the stream cannot be had
// (refused at its caps, a proxy that buffers it, a dropped connection).
import type { Transaction } from './api-types.js';
import { readEvents } from './event-stream.js';
import { QrisGatewayError } from './errors.js';
import { linkedController, sleep, type Transport } from './transport.js';

export interface WaitOptions {
  /** Give up after this many milliseconds with a `wait_timeout` error. Default: wait until a final state (expiry is one). */
  timeout?: number;
  /** Stop waiting: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * A status stream that sends nothing, not even its heartbeat, for this long is taken as broken, and
   * the wait polls instead. Default 45 000 ms: three of the gateway's heartbeats at its default 15 s.
   */
  streamIdleTimeout?: number;
}

/** Polling starts at 1 s and grows by half each time, to at most 5 s. */
const POLL_FIRST_MS = 1000;
const POLL_MAX_MS = 5000;
const STREAM_IDLE_MS = 45_000;
/** How long to poll before trying the stream again (the gateway's refusals say Retry-After: 30). */
const STREAM_RETRY_MS = 30_000;

export const isFinal = (tx: Transaction): boolean => tx.status !== 'pending';

export async function waitForPayment(
  transport: Transport,
  getStatus: (trxid: string, signal: AbortSignal) => Promise<Transaction>,
  trxid: string,
  options: WaitOptions = {},
): Promise<Transaction> {
  const controller = new AbortController();
  const stop = (reason: unknown) => controller.abort(reason);
  const onAbort = () => stop(options.signal!.reason);
  if (options.signal?.aborted) throw options.signal.reason;
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const timer =
    options.timeout === undefined
      ? undefined
      : setTimeout(
          () =>
            stop(
              new QrisGatewayError({
                code: 'wait_timeout',
                status: 0,
                message: `${trxid} was still pending after ${options.timeout} ms`,
              }),
            ),
          options.timeout,
        );
  const signal = controller.signal;
  try {
    // The first read checks the id and the key, and may already be final.
    let tx = await getStatus(trxid, signal);
    // Later reads ride out a gateway that is briefly away (restarting, overloaded): the wait goes on.
    const read = async (current: Transaction) => {
      try {
        return await getStatus(trxid, signal);
      } catch (err) {
        if (signal.aborted || !transient(err)) throw err;
        return current;
      }
    };
    while (!isFinal(tx)) {
      const streamed = await followStream(transport, trxid, signal, options.streamIdleTimeout ?? STREAM_IDLE_MS);
      // However the stream ended, the transaction itself comes from cstatus.
      tx = await read(tx);
      if (isFinal(tx) || streamed === 'final') continue;
      // No stream, or one that ended early: poll until the stream may be tried again.
      let delay = POLL_FIRST_MS;
      const until = Date.now() + STREAM_RETRY_MS;
      while (!isFinal(tx) && Date.now() < until) {
        await sleep(delay, signal);
        delay = Math.min(POLL_MAX_MS, delay * 1.5);
        tx = await read(tx);
      }
    }
    return tx;
  } catch (err) {
    // Whatever was in flight when the wait was stopped, the caller hears why it stopped.
    if (signal.aborted) throw signal.reason;
    throw err;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    if (!signal.aborted) controller.abort();
  }
}

function transient(err: unknown): boolean {
  if (!(err instanceof QrisGatewayError)) return false;
  return (
    err.code === 'network_error' ||
    err.code === 'timeout' ||
    err.code === 'invalid_response' ||
    err.status === 429 ||
    err.status >= 500
  );
}

/**
 * Follows the stream until it reports a final status ('final'), ends by itself ('ended': the gateway ends
 * it at expiry), or could not be had, broke or fell silent ('unavailable').
 */
async function followStream(
  transport: Transport,
  trxid: string,
  signal: AbortSignal,
  idleMs: number,
): Promise<'final' | 'ended' | 'unavailable'> {
  // The gateway writes a heartbeat every 15 s by default. A stream silent for longer than idleMs (a
  // connection that died without a reset, a proxy that holds the stream back) is given up for polling.
  const { controller: stream, release } = linkedController(signal);
  let timer = setTimeout(() => stream.abort(), idleMs);
  const alive = () => {
    clearTimeout(timer);
    timer = setTimeout(() => stream.abort(), idleMs);
  };
  try {
    const response = await transport.fetch(transport.url(`/checkout/${encodeURIComponent(trxid)}/events`), {
      headers: transport.headers(false, { accept: 'text/event-stream' }),
      redirect: 'error',
      signal: stream.signal,
    });
    if (
      !response.ok ||
      !(response.headers.get('content-type') ?? '').startsWith('text/event-stream') ||
      response.body === null
    ) {
      await response.body?.cancel().catch(() => {});
      return 'unavailable';
    }
    for await (const message of readEvents(response.body, stream.signal, alive)) {
      if (message.event !== 'status') continue;
      const status = (JSON.parse(message.data) as { status?: unknown }).status;
      if (typeof status === 'string' && status !== 'pending') return 'final';
    }
    return 'ended';
  } catch {
    if (signal.aborted) throw signal.reason;
    return 'unavailable';
  } finally {
    clearTimeout(timer);
    release();
  }
}
