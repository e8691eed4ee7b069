// Amounts as words, so the point of sale and the soundbox can say a payment aloud. The browser's
// speech synthesis reads "25123" digit by digit or as an English number depending on the voice, so the
// words are spelled out here, deterministically, in the language of the page.
// Pure: no Intl (the output must not depend on the ICU data a Node or browser build happens to carry).

export type WordsLanguage = 'id' | 'en';

/** Largest number spelled: 999 trillion, far above any QRIS amount, and still exact as a JS number. */
export const MAX_SPELLED = 999_999_999_999_999;

const ID_ONES = ['nol', 'satu', 'dua', 'tiga', 'empat', 'lima', 'enam', 'tujuh', 'delapan', 'sembilan'];
// Scales above a thousand; Indonesian says "satu juta" (never "sejuta" in announcements), but "seribu".
const ID_SCALES = ['', 'ribu', 'juta', 'miliar', 'triliun'];

const EN_ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const EN_TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const EN_SCALES = ['', 'thousand', 'million', 'billion', 'trillion'];

function checkSpellable(n: number): void {
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_SPELLED) {
    throw new RangeError(`cannot spell ${String(n)}: whole numbers from 0 to ${MAX_SPELLED} only`);
  }
}

/** Groups of three digits, least significant first: 25123 -> [123, 25]. */
function groupsOf(n: number): number[] {
  const groups: number[] = [];
  let rest = n;
  while (rest > 0) {
    groups.push(rest % 1000);
    rest = Math.floor(rest / 1000);
  }
  return groups;
}

// 1..999 in Indonesian: "se-" replaces "satu" before "puluh"/"ratus", and 11-19 are "-belas".
function indonesianBelowThousand(n: number): string[] {
  const words: string[] = [];
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  if (hundreds === 1) words.push('seratus');
  else if (hundreds > 1) words.push(ID_ONES[hundreds] as string, 'ratus');
  if (rest === 10) words.push('sepuluh');
  else if (rest === 11) words.push('sebelas');
  else if (rest > 11 && rest < 20) words.push(ID_ONES[rest - 10] as string, 'belas');
  else if (rest >= 20) {
    words.push(ID_ONES[Math.floor(rest / 10)] as string, 'puluh');
    if (rest % 10 > 0) words.push(ID_ONES[rest % 10] as string);
  } else if (rest > 0) words.push(ID_ONES[rest] as string);
  return words;
}

/** 25123 -> "dua puluh lima ribu seratus dua puluh tiga"; 1000 -> "seribu"; 0 -> "nol". */
export function indonesianWords(n: number): string {
  checkSpellable(n);
  if (n === 0) return ID_ONES[0] as string;
  const groups = groupsOf(n);
  const words: string[] = [];
  for (let scale = groups.length - 1; scale >= 0; scale--) {
    const group = groups[scale] as number;
    if (group === 0) continue;
    // Exactly one thousand is "seribu"; 1 in any other scale keeps "satu" ("satu juta", "seratus satu ribu").
    if (scale === 1 && group === 1) words.push('seribu');
    else {
      words.push(...indonesianBelowThousand(group));
      if (scale > 0) words.push(ID_SCALES[scale] as string);
    }
  }
  return words.join(' ');
}

function englishBelowThousand(n: number): string[] {
  const words: string[] = [];
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  if (hundreds > 0) words.push(EN_ONES[hundreds] as string, 'hundred');
  if (rest >= 20) {
    const tens = EN_TENS[Math.floor(rest / 10)] as string;
    words.push(rest % 10 > 0 ? `${tens}-${EN_ONES[rest % 10]}` : tens);
  } else if (rest > 0) words.push(EN_ONES[rest] as string);
  return words;
}

/** 25123 -> "twenty-five thousand one hundred twenty-three" (American style, no "and"). */
export function englishWords(n: number): string {
  checkSpellable(n);
  if (n === 0) return EN_ONES[0] as string;
  const groups = groupsOf(n);
  const words: string[] = [];
  for (let scale = groups.length - 1; scale >= 0; scale--) {
    const group = groups[scale] as number;
    if (group === 0) continue;
    words.push(...englishBelowThousand(group));
    if (scale > 0) words.push(EN_SCALES[scale] as string);
  }
  return words.join(' ');
}

export function amountWords(n: number, language: WordsLanguage): string {
  return language === 'id' ? indonesianWords(n) : englishWords(n);
}

function capitalised(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** What the point of sale and the soundbox say when a payment arrives. */
export function paymentAnnouncement(amount: number, language: WordsLanguage): string {
  const words = capitalised(amountWords(amount, language));
  return language === 'id' ? `Pembayaran diterima. ${words} rupiah.` : `Payment received. ${words} rupiah.`;
}

/** The BCP 47 tag for speech synthesis voices of the language. */
export function speechLang(language: WordsLanguage): string {
  return language === 'id' ? 'id-ID' : 'en-US';
}
