// The words of the console's error pages (errors.ts), in both languages.
import { defineMessages } from '../../../presentation/messages.js';

export const words = defineMessages(
  {
    notFound: 'Not found',
    notFoundText: 'There is nothing here, or it is not yours to see.',
    csrf: 'This form has expired',
    csrfText:
      'The form was sent without its security token, or with an old one. Go back, reload the page and send it again.',
    tooLarge: 'The upload is too large',
    failed: 'Something went wrong',
    failedText: 'The gateway could not do this. Nothing was changed. Quote this reference if you ask for help: {id}',
    refused: 'This cannot be done',
    unavailable: 'Temporarily unavailable',
    unavailableText: 'The gateway cannot reach its database just now. Nothing was changed. Try again in a moment.',
    retry: 'Try again',
    invalid: 'This form could not be used',
    invalidText:
      'The field "{field}" holds a value of a kind this page does not take. Go back, check it and send the form again.',
    backToForm: 'Back to the form',
    back: 'Back to the overview',
    backToLogin: 'Back to the login',
  },
  {
    notFound: 'Tidak ditemukan',
    notFoundText: 'Tidak ada apa pun di sini, atau Anda tidak berhak melihatnya.',
    csrf: 'Formulir ini sudah kedaluwarsa',
    csrfText:
      'Formulir dikirim tanpa token keamanannya, atau dengan token lama. Kembali, muat ulang halaman, lalu kirim lagi.',
    tooLarge: 'Unggahan terlalu besar',
    failed: 'Terjadi kesalahan',
    failedText:
      'Gateway tidak dapat melakukan ini. Tidak ada yang diubah. Sebutkan referensi ini jika meminta bantuan: {id}',
    refused: 'Tidak dapat dilakukan',
    unavailable: 'Sementara tidak tersedia',
    unavailableText:
      'Gateway sedang tidak dapat menjangkau basis datanya. Tidak ada yang diubah. Coba lagi sebentar lagi.',
    retry: 'Coba lagi',
    invalid: 'Formulir ini tidak dapat dipakai',
    invalidText:
      'Isian "{field}" berisi nilai yang tidak diterima halaman ini. Kembali, periksa, lalu kirim formulirnya lagi.',
    backToForm: 'Kembali ke formulir',
    back: 'Kembali ke ringkasan',
    backToLogin: 'Kembali ke halaman masuk',
  },
);
