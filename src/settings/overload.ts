import { getHeapStatistics } from 'node:v8';
import { wholeNumber, type SettingsOf } from './kit.js';

// Limits past which the server sheds load (overload.ts): 503 `overloaded` at once, before any database
// work. `0` turns a limit off. The defaults must never fire in normal operation, on a loaded 2-core CI
// machine running the test suite included: a busy server's latency rises first (group commit waits for
// the disk and batches more), which is not overload, so only a stalled event loop, a heap about to run
// out, or more API requests in progress than OVERLOAD_MAX_IN_FLIGHT trips them (256: a burst that size is
// no small merchant's normal traffic, group commit still gathers large batches under it, and the tests'
// largest burst at one process is 200). RSS and event-loop utilisation depend on the machine (a container's memory, how busy
// is busy), so they are off until an operator sets them.
export interface OverloadSettings {
  /** Mean event-loop delay over one sample, in ms, past which requests are shed. */
  overloadMaxEventLoopDelayMs: number;
  /** V8 heap in use, in bytes, past which requests are shed. */
  overloadMaxHeapUsedBytes: number;
  /** Resident set size, in bytes, past which requests are shed. */
  overloadMaxRssBytes: number;
  /** Event-loop utilisation over one sample, in per mille (0-1000), past which requests are shed. */
  overloadMaxEventLoopUtilization: number;
  /** Authenticated API requests (a valid key, the body read) in progress at once past which a new one is shed; 0: no limit. */
  overloadMaxInFlight: number;
  /** Unauthenticated requests (public pages and forms, source events) at work at once past which a new one is shed; 0: no limit. */
  overloadMaxAnonymousInFlight: number;
  /** Unauthenticated requests of one client address in progress at once (bodies still arriving included); 0: no limit. */
  overloadMaxAnonymousPerAddress: number;
  /** How often the load is measured; shedding starts and stops at most this late. */
  overloadSampleIntervalMs: number;
  /** Seconds a shed client is told to wait (Retry-After). */
  overloadRetryAfterSeconds: number;
}

// 90% of what V8 may hold: past it the process spends its time collecting garbage and then dies of an
// out-of-memory error, which loses every request in flight; a healthy gateway stays far below (tens of MB).
const HEAP_DEFAULT = Math.floor(getHeapStatistics().heap_size_limit * 0.9);

export const overloadSettings = {
  // A mean delay of 1 s over a whole sample means every request waits a second before it is even read:
  // a saturated 2-core machine shows tens of ms, a stalled loop (a runaway computation, a swapping host) far more.
  overloadMaxEventLoopDelayMs: wholeNumber(
    'OVERLOAD_MAX_EVENT_LOOP_DELAY_MS',
    'mean event-loop delay past which requests are shed; 0 turns it off',
    1000,
    0,
    600_000,
  ),
  overloadMaxHeapUsedBytes: wholeNumber(
    'OVERLOAD_MAX_HEAP_USED_BYTES',
    'V8 heap in use past which requests are shed; 0 turns it off',
    HEAP_DEFAULT,
    0,
    Number.MAX_SAFE_INTEGER,
    '90% of the V8 heap limit',
  ),
  overloadMaxRssBytes: wholeNumber(
    'OVERLOAD_MAX_RSS_BYTES',
    'resident memory past which requests are shed; 0 turns it off',
    0,
    0,
    Number.MAX_SAFE_INTEGER,
  ),
  overloadMaxEventLoopUtilization: wholeNumber(
    'OVERLOAD_MAX_EVENT_LOOP_UTILIZATION',
    'event-loop utilisation in per mille past which requests are shed; 0 turns it off',
    0,
    0,
    1000,
  ),
  // The one limit that bounds how long an accepted request waits (Little's law: at most this many ahead
  // of it, served at the machine's rate); the others only catch a stalled loop or a heap about to burst.
  overloadMaxInFlight: wholeNumber(
    'OVERLOAD_MAX_IN_FLIGHT',
    'authenticated API requests (key checked, body read) in progress at once past which a new one is shed; 0 turns it off',
    256,
    0,
    1_000_000,
  ),
  // Pages, forms and source events of people and services without a key are counted apart from the API:
  // a crowd on the public pages, or one client holding requests open, never sheds a paying merchant's
  // calls. 128 is far more than a shop's payers load at once, and a login's password hash runs inside it.
  overloadMaxAnonymousInFlight: wholeNumber(
    'OVERLOAD_MAX_ANONYMOUS_IN_FLIGHT',
    'unauthenticated requests (public pages and forms, source events) at work at once past which a new one is shed; 0 turns it off',
    128,
    0,
    1_000_000,
  ),
  // One address: a slow-body or page flood from one client is refused (429) long before it fills the pool
  // above. A body counts only once a check finds it still arriving (slow-bodies.ts), so a merchant's server
  // sending hundreds of creates at once never comes near it; behind a proxy, set TRUST_PROXY or every
  // client is the proxy's one address.
  overloadMaxAnonymousPerAddress: wholeNumber(
    'OVERLOAD_MAX_ANONYMOUS_PER_ADDRESS',
    'unauthenticated requests of one client address in progress at once, slow bodies still arriving included, past which a new one gets 429; 0 turns it off',
    64,
    0,
    1_000_000,
  ),
  overloadSampleIntervalMs: wholeNumber(
    'OVERLOAD_SAMPLE_INTERVAL_MS',
    'how often the load is measured',
    1000,
    10,
    60_000,
  ),
  overloadRetryAfterSeconds: wholeNumber(
    'OVERLOAD_RETRY_AFTER_SECONDS',
    'Retry-After sent with 503 overloaded',
    2,
    1,
    3600,
  ),
} satisfies SettingsOf<OverloadSettings>;
