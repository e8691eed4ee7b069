// The words of the login form (login.ts), in both languages.
import { defineMessages } from '../../../presentation/messages.js';

export const words = defineMessages(
  {
    title: 'Log in',
    email: 'Email',
    password: 'Password',
    logIn: 'Log in',
    intro: 'The console of this QRIS gateway.',
    // Said only where nobody can sign up (SIGNUP=closed or invite); an open gateway offers the sign-up link instead.
    operatorMade: 'Log in with the account your operator made for you.',
    failed: 'The e-mail address or the password is wrong.',
    throttled: 'Too many failed logins. Try again in {seconds} seconds.',
    busy: 'The server is busy just now. Try again in a moment.',
    loggedOut: 'You have logged out.',
    expired: 'Your session has ended. Log in again to go on.',
    unverified: 'Confirm your e-mail address first: open the link we sent you. (Signing up again sends a new one.)',
    forgot: 'Forgot your password?',
    // Without SMTP_URL the gateway cannot mail a reset link: the person is sent to the operator instead.
    forgotNoMail:
      'Forgot your password? Ask your operator to set a new password (this gateway sends no e-mail, so it cannot send you a reset link).',
    operatorCommand: "Operators set it at the gateway's shell (it asks for the new password):",
    signUp: 'No account yet? Sign up',
    backToLogin: 'Back to the login',
  },
  {
    title: 'Masuk',
    email: 'Email',
    password: 'Kata sandi',
    logIn: 'Masuk',
    intro: 'Konsol gateway QRIS ini.',
    operatorMade: 'Masuk dengan akun yang dibuat operator untuk Anda.',
    failed: 'Alamat email atau kata sandi salah.',
    throttled: 'Terlalu banyak percobaan gagal. Coba lagi dalam {seconds} detik.',
    busy: 'Server sedang sibuk. Coba lagi sebentar lagi.',
    loggedOut: 'Anda telah keluar.',
    expired: 'Sesi Anda telah berakhir. Masuk lagi untuk melanjutkan.',
    unverified:
      'Konfirmasi alamat email Anda dulu: buka tautan yang kami kirim. (Mendaftar lagi mengirim tautan baru.)',
    forgot: 'Lupa kata sandi?',
    forgotNoMail:
      'Lupa kata sandi? Minta operator Anda mengatur kata sandi baru (gateway ini tidak mengirim email, jadi tidak dapat mengirim tautan atur ulang).',
    operatorCommand: 'Operator mengaturnya di shell gateway (perintah ini menanyakan kata sandi barunya):',
    signUp: 'Belum punya akun? Daftar',
    backToLogin: 'Kembali ke halaman masuk',
  },
);
