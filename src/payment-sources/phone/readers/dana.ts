import { RUPIAH, rupiahValue } from './amount.js';
import type { Reader } from './reader.js';

// DANA, seen in an open-source DANA notification gateway: `Kamu berhasil menerima Rp10000 via Gopay ke
// akunmu. Cek yuk!` and `Kamu berhasil menerima Rp99.947 dari ...`. No payment id in the text.
const RECEIVED = new RegExp(`^\\s*Kamu berhasil menerima ${RUPIAH} (?:via|dari) \\S`);

export const dana: Reader = {
  name: 'dana',
  // The package of DANA's Play Store listing (not seen in the bridges' code, which match the text only).
  packages: ['id.dana'],
  read(notification, max) {
    const m = RECEIVED.exec(notification.text);
    if (!m) return null;
    const amount = rupiahValue(m[1]!, m[2], max);
    return amount === null ? null : [{ amount, transactionId: null, line: notification.text.trim() }];
  },
  example: (amount) => ({ title: 'DANA', text: `Kamu berhasil menerima Rp${amount} via Gopay ke akunmu. Cek yuk!` }),
};
