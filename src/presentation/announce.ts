// What the soundbox says aloud when a payment arrives (issue 27, section 2). A stand-in until the point
// of sale's number-to-words function (src/domain/rupiah-words.ts, built beside this) lands: every caller
// goes through announcementText, so pointing it there is one import.
import type { Lang } from './messages.js';

const ID_ONES = ['nol', 'satu', 'dua', 'tiga', 'empat', 'lima', 'enam', 'tujuh', 'delapan', 'sembilan'];
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

function idBelowThousand(n: number): string[] {
  const words: string[] = [];
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  if (hundreds === 1) words.push('seratus');
  else if (hundreds > 1) words.push(ID_ONES[hundreds]!, 'ratus');
  if (rest === 10) words.push('sepuluh');
  else if (rest === 11) words.push('sebelas');
  else if (rest > 11 && rest < 20) words.push(ID_ONES[rest - 10]!, 'belas');
  else if (rest >= 20) {
    words.push(ID_ONES[Math.floor(rest / 10)]!, 'puluh');
    if (rest % 10 > 0) words.push(ID_ONES[rest % 10]!);
  } else if (rest > 0) words.push(ID_ONES[rest]!);
  return words;
}

function enBelowThousand(n: number): string[] {
  const words: string[] = [];
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  if (hundreds > 0) words.push(EN_ONES[hundreds]!, 'hundred');
  if (rest >= 20) words.push(EN_TENS[Math.floor(rest / 10)]! + (rest % 10 > 0 ? `-${EN_ONES[rest % 10]}` : ''));
  else if (rest > 0) words.push(EN_ONES[rest]!);
  return words;
}

/** A whole number of rupiah in words ("dua puluh lima ribu seratus dua puluh tiga"). */
export function amountInWords(amount: number, lang: Lang): string {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`not a whole amount: ${amount}`);
  if (amount === 0) return lang === 'id' ? 'nol' : 'zero';
  const groups: number[] = [];
  for (let n = amount; n > 0; n = Math.floor(n / 1000)) groups.push(n % 1000);
  if (groups.length > ID_SCALES.length) throw new RangeError(`amount too large to say: ${amount}`);
  const words: string[] = [];
  for (let i = groups.length - 1; i >= 0; i--) {
    const group = groups[i]!;
    if (group === 0) continue;
    if (lang === 'id') {
      // One thousand is "seribu", never "satu ribu".
      if (i === 1 && group === 1) words.push('seribu');
      else words.push(...idBelowThousand(group), ID_SCALES[i]!);
    } else {
      words.push(...enBelowThousand(group), EN_SCALES[i]!);
    }
  }
  return words.filter((w) => w !== '').join(' ');
}

/** The sentence said when a payment of `amount` arrives: "Pembayaran diterima. Dua puluh lima ribu rupiah." */
export function announcementText(amount: number, lang: Lang): string {
  const words = amountInWords(amount, lang);
  const said = `${words.charAt(0).toUpperCase()}${words.slice(1)} rupiah.`;
  return lang === 'id' ? `Pembayaran diterima. ${said}` : `Payment received. ${said}`;
}
