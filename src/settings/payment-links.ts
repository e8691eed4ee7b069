import { wholeNumber, type SettingsOf } from './kit.js';

// Settings of the payment links (/pay/...), parsed as strictly as the rest of the configuration
// (settings/all.ts gathers them into the registry; each is documented in docs/configuration.md's table).
export interface PaymentLinkSettings {
  /** Payment-link opens that may create a transaction, per client address (IPv6: per /64) per minute; 0 means no limit. */
  paymentLinkCreatesPerMinute: number;
  /**
   * Transactions one merchant's payment links may make per WIB day, counted apart from (and never
   * against) the merchant's API quota.
   */
  paymentLinkDailyCreates: number;
}

export const paymentLinkSettings = {
  paymentLinkCreatesPerMinute: wholeNumber(
    'PAYMENT_LINK_CREATES_PER_MINUTE',
    'payment-link opens with an amount per client address per minute; 0: no limit',
    10,
    0,
    1_000_000,
  ),
  // Half the default unique-code range (1-999): links alone can never hold every code of one amount.
  paymentLinkDailyCreates: wholeNumber(
    'PAYMENT_LINK_DAILY_CREATES',
    "transactions one merchant's payment links may make per WIB day",
    500,
    1,
    10_000_000,
  ),
} satisfies SettingsOf<PaymentLinkSettings>;
