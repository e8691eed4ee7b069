// The registry of phone-notification readers: one line per app. Adding an app is a file beside this one
// (its wording, seen in a public source) with its fixtures in test/fixtures/phone/, and a line here.
import { dana } from './dana.js';
import { gopayMerchant } from './gopay-merchant.js';
import { nobu } from './nobu.js';
import { notAPayment } from './not-a-payment.js';
import type { IgnoredReason, PhoneNotification, ReadPayment, Reader } from './reader.js';

export const readers: readonly Reader[] = [gopayMerchant, dana, nobu];

export function readerByName(name: string): Reader | undefined {
  return readers.find((r) => r.name === name);
}

/**
 * What a notification reports. The app names the reader when the forwarder sends a package a reader
 * claims; otherwise (no package, or one no reader lists, such as a bank app whose package is not known)
 * every reader is tried: their shapes do not overlap. Offers, outgoing payments and withdrawals are never
 * payments, whichever app shows them.
 */
export type ReaderVerdict =
  | { payments: ReadPayment[]; reader: Reader }
  | { ignored: IgnoredReason; reader: Reader | null };

export function readNotification(notification: PhoneNotification, maxAmount: number): ReaderVerdict {
  const claimed = notification.app === null ? [] : readers.filter((r) => r.packages.includes(notification.app!));
  const candidates = claimed.length > 0 ? claimed : readers;
  const named = claimed.length === 1 ? claimed[0]! : null;
  const not = notAPayment(`${notification.title}\n${notification.text}`);
  if (not !== null) return { ignored: not, reader: named };
  for (const reader of candidates) {
    const payments = reader.read(notification, maxAmount);
    if (payments !== null) return { payments, reader };
  }
  return { ignored: notification.app !== null && claimed.length === 0 ? 'unknown_app' : 'unreadable', reader: named };
}
