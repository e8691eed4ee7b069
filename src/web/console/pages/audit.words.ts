// The words of the audit log page (audit.ts), in both languages.
import { defineMessages } from '../../../presentation/messages.js';

export const words = defineMessages(
  {
    title: 'Audit log',
    intro: 'Every change made from the console or the command line, newest first. Times are WIB.',
    actor: 'Actor',
    action: 'Action',
    filter: 'Filter',
    clear: 'Clear',
    who: 'Who',
    what: 'What',
    subject: 'Subject',
    when: 'When',
    details: 'Details',
    none: 'No entries.',
    older: 'Older entries',
    newest: 'Newest entries',
    actorHint: 'Exactly as shown, e.g. user:ops@example.com',
  },
  {
    title: 'Log audit',
    intro: 'Setiap perubahan dari konsol atau baris perintah, terbaru di atas. Waktu dalam WIB.',
    actor: 'Pelaku',
    action: 'Tindakan',
    filter: 'Saring',
    clear: 'Hapus saringan',
    who: 'Siapa',
    what: 'Apa',
    subject: 'Objek',
    when: 'Kapan',
    details: 'Rincian',
    none: 'Tidak ada entri.',
    older: 'Entri lebih lama',
    newest: 'Entri terbaru',
    actorHint: 'Persis seperti yang tampil, mis. user:ops@example.com',
  },
);
