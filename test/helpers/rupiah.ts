// Amounts written as the merchant apps and histories write them, for tests: the gateway's own
// formatRupiah ("Rp1.000") and the other spellings the phone readers accept.
import { formatRupiah } from '../../src/domain/money.js';

export type RupiahSpelling = 'dotted' | 'plain' | 'spaced' | 'cents';

/** "1.000": dots between thousands, without the "Rp". */
export const dotted = (amount: number): string => formatRupiah(amount).slice(2);

export function writeRupiah(amount: number, spelling: RupiahSpelling): string {
  switch (spelling) {
    case 'dotted':
      return formatRupiah(amount);
    case 'plain':
      return `Rp${amount}`;
    case 'spaced':
      return `Rp ${dotted(amount)}`;
    case 'cents':
      return `Rp ${dotted(amount)},00`;
  }
}
