import type { Mode } from './records.js';

/**
 * Why a counter sells in the sandbox: the built-in demo merchant (whose QRIS no wallet can pay), a
 * merchant whose live payments are not open yet (waiting for an operator, or rejected), or one with no
 * enabled live payment source, so no real payment of its QR could ever be learned.
 */
export type SandboxReason = 'demo' | 'live_refused' | 'no_live_source';

export interface SaleModeFacts {
  /** The merchant DEMO_MERCHANT made at first start (its built-in static QRIS). */
  demo: boolean;
  /** Its live keys refused for now (LIVE_KEYS=approval, waiting or rejected). */
  liveRefused: boolean;
  /** It has at least one enabled payment source of mode live. */
  liveSource: boolean;
}

export type SaleMode = { mode: 'live'; sandboxReason: null } | { mode: 'test'; sandboxReason: SandboxReason };

/**
 * The mode a point of sale sells in: live only once a live sale can be paid, that is a merchant that is
 * not the demo, whose live payments are open, and that has an enabled live payment source; the sandbox
 * otherwise, with the first reason that holds (the one the cashier can least change first).
 */
export function posSaleMode(facts: SaleModeFacts): SaleMode {
  const reason: SandboxReason | null = facts.demo
    ? 'demo'
    : facts.liveRefused
      ? 'live_refused'
      : facts.liveSource
        ? null
        : 'no_live_source';
  return reason === null
    ? { mode: 'live', sandboxReason: null }
    : { mode: 'test' satisfies Mode, sandboxReason: reason };
}
