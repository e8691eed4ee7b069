// What a reader is: one app's notification wording turned into the payments it reports. Each app is one
// file beside this one (gopay-merchant.ts, dana.ts, nobu.ts), listed in index.ts; a reader names only the
// shapes of a payment *received*, and everything else it is shown is ignored with a reason.

/** A notification as the forwarder sent it, its fields already picked out of the body (notification.ts). */
export interface PhoneNotification {
  title: string;
  text: string;
  /** The Android package that posted it, when the forwarder sends it. */
  app: string | null;
}

/** One payment a notification reports. */
export interface ReadPayment {
  amount: number;
  /** The app's own id of the payment (GoPay's `ID transaksi`), when the text carries one. */
  transactionId: string | null;
  /** The line of the text it was read from. */
  line: string;
}

/** Why a notification pays nothing. */
export type IgnoredReason = 'unknown_app' | 'promotion' | 'outgoing' | 'withdrawal' | 'unreadable';

export interface Reader {
  /** Short name (`gopay`, `dana`, `nobu`): stored with the notification and used by `dev notify --app`. */
  name: string;
  /** The Android packages it is known to post under (a post naming one is read by this reader only). */
  packages: readonly string[];
  /** Its payments, or null when the text is none of the app's payment-received shapes. */
  read(notification: PhoneNotification, maxAmount: number): ReadPayment[] | null;
  /** What this app's forwarder would send for a payment received (for `dev notify` and the tests). */
  example(amount: number, transactionId: string): { title: string; text: string };
}
