// The words of the payer's checkout page (checkout-page.ts) that are its own, in both languages; what the
// invoice mail says too (the total's label, the sandbox note, ...) is in presentation/shared-texts.ts.
import { defineMessages } from '../presentation/messages.js';

export const words = defineMessages(
  {
    title: 'Pay {total} – {merchant}',
    simulate: 'Pay (simulated)',
    payExactly: 'Pay exactly {total}, unique code included.',
    scan: 'Scan with any QRIS wallet or banking app.',
  },
  {
    title: 'Bayar {total} – {merchant}',
    simulate: 'Bayar (simulasi)',
    payExactly: 'Bayar tepat {total}, termasuk kode unik.',
    scan: 'Pindai dengan aplikasi dompet digital atau bank apa pun yang mendukung QRIS.',
  },
);
