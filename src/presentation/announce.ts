// What the soundbox says aloud when a payment arrives (issue 27, section 2): the point of sale's sentence,
// from the one number-to-words function in the domain (src/domain/rupiah-words.ts).
import { paymentAnnouncement } from '../domain/rupiah-words.js';
import type { Lang } from './messages.js';

/** The sentence said when a payment of `amount` arrives: "Pembayaran diterima. Dua puluh lima ribu rupiah." */
export function announcementText(amount: number, lang: Lang): string {
  return paymentAnnouncement(amount, lang);
}
