// The words of the console's frame (layout.ts): the navigation, the language switch, the account links.
import { defineMessages } from '../../presentation/messages.js';

export const words = defineMessages(
  {
    overview: 'Overview',
    transactions: 'Transactions',
    payments: 'Payments',
    merchants: 'Merchants',
    links: 'Payment links',
    keys: 'API keys',
    sources: 'Payment sources',
    webhooks: 'Webhooks',
    audit: 'Audit log',
    users: 'Users',
    account: 'Your account',
    logOut: 'Log out',
    language: 'Language',
    // The switch names each language in that language, whatever the page's.
    languageName: 'English',
    skip: 'Skip to content',
    operator: 'operator',
  },
  {
    overview: 'Ringkasan',
    transactions: 'Transaksi',
    payments: 'Pembayaran',
    merchants: 'Merchant',
    links: 'Tautan pembayaran',
    keys: 'Kunci API',
    sources: 'Sumber pembayaran',
    webhooks: 'Webhook',
    audit: 'Log audit',
    users: 'Pengguna',
    account: 'Akun Anda',
    logOut: 'Keluar',
    language: 'Bahasa',
    languageName: 'Indonesia',
    skip: 'Langsung ke isi',
    operator: 'operator',
  },
);
