// The words of the "Connect a phone" card and the received-notifications list (phone-card.ts), in both languages.
import { defineMessages } from '../../../presentation/messages.js';

export const words = defineMessages(
  {
    connectTitle: 'Connect a phone',
    once: 'The token and the secret are shown only this once: set the phone up now (source rotate issues new ones).',
    url: 'URL',
    token: 'Token',
    secret: 'Signing secret',
    urlWithToken: 'URL with the token, for apps that cannot set headers',
    tokenWarning:
      'Anyone who learns the token can report payments to this source. Where the app can sign, use the signing secret instead and keep the token off the phone.',
    forwarderTitle: 'SMS to URL Forwarder (open source, F-Droid)',
    forwarder1:
      'Allow it to read notifications, and add a forwarding rule in notification mode for your merchant app (GoPay Merchant, GoBiz, DANA or Nobu).',
    forwarder2: 'Paste the URL above as the rule’s URL, and this JSON as its template:',
    forwarder3:
      'Turn on request signing (HMAC-SHA256) and paste the signing secret: it sends X-Signature, and no token is needed.',
    automationTitle: 'MacroDroid, Tasker and other automation apps',
    automation1:
      'Trigger: a notification received from your merchant app. Choose the app explicitly: MacroDroid’s app picker starts on “exclude”.',
    automation2:
      'Action: an HTTP request, method POST, to the URL above, with the header Authorization: Bearer and the token (or the URL with the token).',
    automation3:
      'Body, content type application/json, with the app’s own variables for the notification’s title and text in place of the words in capitals:',
    testTitle: 'Try it',
    test: 'Send yourself a small QRIS payment: it appears below under Notifications received, with what it became.',
    notificationsTitle: 'Notifications received',
    noNotifications: 'None yet.',
    when: 'Received',
    app: 'App',
    text: 'Notification',
    became: 'Became',
    outcome_matched: 'paid a transaction',
    outcome_unmatched: 'payment, not matched',
    outcome_duplicate: 'already recorded',
    outcome_ignored: 'ignored',
    ignored_unknown_app: 'not from a merchant app the gateway reads',
    ignored_promotion: 'an offer or cashback, not a payment',
    ignored_outgoing: 'money paid or sent out, not received',
    ignored_withdrawal: 'a withdrawal, not a payment',
    ignored_unreadable: 'not a payment-received text the gateway can read',
  },
  {
    connectTitle: 'Hubungkan ponsel',
    once: 'Token dan rahasia hanya ditampilkan sekali ini: atur ponsel sekarang (source rotate menerbitkan yang baru).',
    url: 'URL',
    token: 'Token',
    secret: 'Rahasia penandatanganan',
    urlWithToken: 'URL dengan token, untuk aplikasi yang tidak bisa mengatur header',
    tokenWarning:
      'Siapa pun yang mengetahui token dapat melaporkan pembayaran ke sumber ini. Jika aplikasinya bisa menandatangani, gunakan rahasia penandatanganan dan jangan simpan token di ponsel.',
    forwarderTitle: 'SMS to URL Forwarder (sumber terbuka, F-Droid)',
    forwarder1:
      'Izinkan membaca notifikasi, lalu tambahkan aturan penerusan mode notifikasi untuk aplikasi merchant Anda (GoPay Merchant, GoBiz, DANA atau Nobu).',
    forwarder2: 'Tempel URL di atas sebagai URL aturan, dan JSON ini sebagai templatnya:',
    forwarder3:
      'Aktifkan penandatanganan permintaan (HMAC-SHA256) dan tempel rahasia penandatanganan: aplikasi mengirim X-Signature, tanpa token.',
    automationTitle: 'MacroDroid, Tasker dan aplikasi otomasi lain',
    automation1:
      'Pemicu: notifikasi diterima dari aplikasi merchant Anda. Pilih aplikasinya secara eksplisit: pemilih aplikasi MacroDroid dimulai dengan “kecualikan”.',
    automation2:
      'Aksi: permintaan HTTP, metode POST, ke URL di atas, dengan header Authorization: Bearer dan token (atau URL dengan token).',
    automation3:
      'Body, tipe konten application/json, dengan variabel aplikasi untuk judul dan teks notifikasi di tempat kata berhuruf kapital:',
    testTitle: 'Coba',
    test: 'Kirim pembayaran QRIS kecil ke diri sendiri: pembayaran itu muncul di bawah pada Notifikasi diterima, dengan hasilnya.',
    notificationsTitle: 'Notifikasi diterima',
    noNotifications: 'Belum ada.',
    when: 'Diterima',
    app: 'Aplikasi',
    text: 'Notifikasi',
    became: 'Hasil',
    outcome_matched: 'membayar transaksi',
    outcome_unmatched: 'pembayaran, tidak cocok',
    outcome_duplicate: 'sudah tercatat',
    outcome_ignored: 'diabaikan',
    ignored_unknown_app: 'bukan dari aplikasi merchant yang dibaca gateway',
    ignored_promotion: 'penawaran atau cashback, bukan pembayaran',
    ignored_outgoing: 'uang dibayar atau dikirim keluar, bukan diterima',
    ignored_withdrawal: 'penarikan, bukan pembayaran',
    ignored_unreadable: 'bukan teks pembayaran diterima yang dapat dibaca gateway',
  },
);
