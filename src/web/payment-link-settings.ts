import { wholeNumberSetting, type Env } from '../env-settings.js';

// Settings of the payment links (/pay/...), parsed as strictly as the rest of the configuration
// (src/config.ts spreads them into Config; each is documented in the README's table).
export interface PaymentLinkSettings {
  /** Payment-link opens that may create a transaction, per client address (IPv6: per /64) per minute; 0 means no limit. */
  paymentLinkCreatesPerMinute: number;
}

export function paymentLinkSettings(env: Env): PaymentLinkSettings {
  return {
    paymentLinkCreatesPerMinute: wholeNumberSetting(env, 'PAYMENT_LINK_CREATES_PER_MINUTE', 10, 0, 1_000_000),
  };
}
