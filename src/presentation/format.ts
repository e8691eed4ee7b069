// The one time formatter of every page and mail (and its day-only form for charts). (Money has one too: formatRupiah in domain/money.ts, which
// the domain's own error messages also use.)
import type { Lang } from './messages.js';

const formats: Record<Lang, Intl.DateTimeFormat> = {
  en: wibFormat('en-GB'),
  id: wibFormat('id-ID'),
};

const dayFormats: Record<Lang, Intl.DateTimeFormat> = {
  en: new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Jakarta', day: '2-digit', month: 'short' }),
  id: new Intl.DateTimeFormat('id-ID', { timeZone: 'Asia/Jakarta', day: '2-digit', month: 'short' }),
};

function wibFormat(locale: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat(locale, {
    timeZone: 'Asia/Jakarta',
    year: 'numeric',
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hour12: false,
  });
}

/** A time in Western Indonesia Time, the zone the gateway's merchants keep their books in: "26 Nov 2026, 17:03:57 WIB". */
export function formatTime(ms: number, lang: Lang): string {
  return `${formats[lang].format(ms)} WIB`;
}

/** A WIB day as a chart labels it: "26 Nov". */
export function formatDay(ms: number, lang: Lang): string {
  return dayFormats[lang].format(ms);
}
