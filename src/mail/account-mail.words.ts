// The words of the console-account mails (account-mail.ts), one set per mail, in both languages. Each mail
// has the same parts: a subject, two lines before the link, the link's words and a line after it.
import { defineMessages } from '../presentation/messages.js';

const verify = defineMessages(
  {
    subject: 'Confirm your e-mail address',
    intro: 'Someone (we hope you) signed up at this QRIS gateway with this address.',
    action: 'Open this link to confirm the address and log in:',
    button: 'Confirm and log in',
    after: 'The link works once, for 24 hours. If you did not sign up, ignore this e-mail.',
  },
  {
    subject: 'Konfirmasi alamat email Anda',
    intro: 'Seseorang (semoga Anda) mendaftar di gateway QRIS ini dengan alamat email ini.',
    action: 'Buka tautan ini untuk mengonfirmasi alamat dan masuk:',
    button: 'Konfirmasi dan masuk',
    after: 'Tautan berlaku 24 jam dan hanya sekali. Jika Anda tidak mendaftar, abaikan email ini.',
  },
);

const alreadyRegistered = defineMessages(
  {
    subject: 'You already have an account',
    intro: 'Someone tried to sign up with this address, which already has an account.',
    action: 'If that was you, just log in, or reset your password here:',
    button: 'Reset your password',
    after: 'If it was not you, ignore this e-mail: nothing has changed.',
  },
  {
    subject: 'Anda sudah punya akun',
    intro: 'Seseorang mencoba mendaftar dengan alamat email ini, tetapi alamat ini sudah punya akun.',
    action: 'Jika itu Anda, masuk saja, atau atur ulang kata sandi di sini:',
    button: 'Atur ulang kata sandi',
    after: 'Jika bukan Anda, abaikan email ini: tidak ada yang berubah.',
  },
);

const reset = defineMessages(
  {
    subject: 'Reset your password',
    intro: 'Someone asked to reset the password of your account.',
    action: 'Open this link to choose a new password:',
    button: 'Choose a new password',
    after: 'The link works once, for 24 hours. If you did not ask, ignore this e-mail.',
  },
  {
    subject: 'Atur ulang kata sandi',
    intro: 'Seseorang meminta pengaturan ulang kata sandi akun Anda.',
    action: 'Buka tautan ini untuk memilih kata sandi baru:',
    button: 'Pilih kata sandi baru',
    after: 'Tautan berlaku 24 jam dan hanya sekali. Jika Anda tidak memintanya, abaikan email ini.',
  },
);

const invite = defineMessages(
  {
    subject: 'An invitation to a QRIS gateway',
    intro: 'You are invited to make an account at this QRIS gateway.',
    action: 'Open this link to choose a password and log in:',
    button: 'Accept the invitation',
    after: 'The link works once, for 72 hours.',
  },
  {
    subject: 'Undangan ke gateway QRIS',
    intro: 'Anda diundang untuk membuat akun di gateway QRIS ini.',
    action: 'Buka tautan ini untuk memilih kata sandi dan masuk:',
    button: 'Terima undangan',
    after: 'Tautan berlaku 72 jam dan hanya sekali.',
  },
);

export const words = { verify, 'already-registered': alreadyRegistered, reset, invite };
