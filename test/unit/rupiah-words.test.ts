import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_QRIS_AMOUNT } from '../../src/domain/money.js';
import {
  englishWords,
  indonesianWords,
  MAX_SPELLED,
  paymentAnnouncement,
  speechLang,
} from '../../src/domain/rupiah-words.js';

// Independent readers of the words back into numbers, written from the grammar rather than from the
// speller's code: if speller and reader agree on every amount, the words are unambiguous and complete.
const ID_DIGITS: Record<string, number> = {
  satu: 1,
  dua: 2,
  tiga: 3,
  empat: 4,
  lima: 5,
  enam: 6,
  tujuh: 7,
  delapan: 8,
  sembilan: 9,
};
const ID_SCALES: Record<string, number> = { ribu: 1e3, juta: 1e6, miliar: 1e9, triliun: 1e12 };

function readIndonesian(text: string): number {
  if (text === 'nol') return 0;
  let total = 0;
  let group = 0; // the part below the current scale word
  let pending = 0; // a digit waiting for puluh / ratus / belas
  let lastScale = Number.POSITIVE_INFINITY;
  for (const word of text.split(' ')) {
    if (word in ID_DIGITS) {
      if (pending !== 0) throw new Error(`two digits in a row in "${text}"`);
      pending = ID_DIGITS[word] as number;
    } else if (word === 'puluh' || word === 'ratus' || word === 'belas') {
      if (pending < 2) throw new Error(`"${word}" needs a digit from dua in "${text}"`);
      group += word === 'puluh' ? pending * 10 : word === 'ratus' ? pending * 100 : pending + 10;
      pending = 0;
    } else if (word === 'sepuluh' || word === 'sebelas' || word === 'seratus') {
      if (pending !== 0) throw new Error(`digit before "${word}" in "${text}"`);
      group += word === 'sepuluh' ? 10 : word === 'sebelas' ? 11 : 100;
    } else if (word === 'seribu') {
      if (group !== 0 || pending !== 0 || lastScale <= 1e3) throw new Error(`misplaced seribu in "${text}"`);
      total += 1000;
      lastScale = 1e3;
    } else if (word in ID_SCALES) {
      const scale = ID_SCALES[word] as number;
      const value = group + pending;
      if (value === 0 || scale >= lastScale) throw new Error(`misplaced "${word}" in "${text}"`);
      if (scale === 1e3 && value === 1) throw new Error(`"satu ribu" should be "seribu" in "${text}"`);
      total += value * scale;
      lastScale = scale;
      group = 0;
      pending = 0;
    } else throw new Error(`unknown word "${word}" in "${text}"`);
  }
  return total + group + pending;
}

const EN_SMALL: Record<string, number> = Object.fromEntries(
  'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'
    .split(' ')
    .map((w, i) => [w, i + 1]),
);
const EN_TENS: Record<string, number> = Object.fromEntries(
  'twenty thirty forty fifty sixty seventy eighty ninety'.split(' ').map((w, i) => [w, (i + 2) * 10]),
);
const EN_SCALES: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };

function readEnglish(text: string): number {
  if (text === 'zero') return 0;
  let total = 0;
  let group = 0;
  let lastScale = Number.POSITIVE_INFINITY;
  for (const word of text.split(' ')) {
    if (word === 'hundred') {
      if (group < 1 || group > 9) throw new Error(`misplaced hundred in "${text}"`);
      group *= 100;
    } else if (word in EN_SCALES) {
      const scale = EN_SCALES[word] as number;
      if (group === 0 || scale >= lastScale) throw new Error(`misplaced "${word}" in "${text}"`);
      total += group * scale;
      group = 0;
      lastScale = scale;
    } else {
      const [tens, ones] = word.split('-');
      if (tens !== undefined && ones !== undefined) {
        if (!(tens in EN_TENS) || !(ones in EN_SMALL) || (EN_SMALL[ones] as number) > 9)
          throw new Error(`bad "${word}"`);
        group += (EN_TENS[tens] as number) + (EN_SMALL[ones] as number);
      } else if (word in EN_TENS) group += EN_TENS[word] as number;
      else if (word in EN_SMALL) group += EN_SMALL[word] as number;
      else throw new Error(`unknown word "${word}" in "${text}"`);
    }
  }
  return total + group;
}

describe('indonesianWords', () => {
  it.each<[number, string]>([
    [0, 'nol'],
    [1, 'satu'],
    [10, 'sepuluh'],
    [11, 'sebelas'],
    [12, 'dua belas'],
    [19, 'sembilan belas'],
    [20, 'dua puluh'],
    [21, 'dua puluh satu'],
    [100, 'seratus'],
    [101, 'seratus satu'],
    [110, 'seratus sepuluh'],
    [111, 'seratus sebelas'],
    [250, 'dua ratus lima puluh'],
    [1000, 'seribu'],
    [1001, 'seribu satu'],
    [1100, 'seribu seratus'],
    [2000, 'dua ribu'],
    [11_000, 'sebelas ribu'],
    [25_000, 'dua puluh lima ribu'],
    [25_123, 'dua puluh lima ribu seratus dua puluh tiga'],
    [100_000, 'seratus ribu'],
    [101_000, 'seratus satu ribu'],
    [999_999, 'sembilan ratus sembilan puluh sembilan ribu sembilan ratus sembilan puluh sembilan'],
    [1_000_000, 'satu juta'],
    [1_001_000, 'satu juta seribu'],
    [2_500_000, 'dua juta lima ratus ribu'],
    [10_000_000, 'sepuluh juta'],
    [1_000_000_000, 'satu miliar'],
    [1_000_000_000_000, 'satu triliun'],
  ])('%d -> %s', (n, words) => {
    expect(indonesianWords(n)).toBe(words);
  });

  it('reads back to the same number for every amount up to the QRIS maximum', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_QRIS_AMOUNT }), (n) => readIndonesian(indonesianWords(n)) === n),
      { numRuns: 5000 },
    );
  });

  it('reads back for every number it spells, up to its own maximum', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: MAX_SPELLED }), (n) => readIndonesian(indonesianWords(n)) === n));
  });

  it('never says "satu ribu", "satu ratus" or "satu puluh", nor doubles a space', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_QRIS_AMOUNT }), (n) => {
        const words = indonesianWords(n);
        // "dua puluh satu ribu" is right; a thousand, a hundred, ten and eleven on their own take "se-".
        return !/(^|juta |miliar |triliun )satu ribu|(^| )satu (ratus|puluh|belas)|\s{2}|^\s|\s$/.test(words);
      }),
    );
  });

  it('refuses what it cannot spell', () => {
    for (const bad of [-1, 1.5, Number.NaN, MAX_SPELLED + 1, Number.POSITIVE_INFINITY]) {
      expect(() => indonesianWords(bad)).toThrow(RangeError);
    }
  });
});

describe('englishWords', () => {
  it.each<[number, string]>([
    [0, 'zero'],
    [7, 'seven'],
    [13, 'thirteen'],
    [40, 'forty'],
    [99, 'ninety-nine'],
    [100, 'one hundred'],
    [1000, 'one thousand'],
    [25_123, 'twenty-five thousand one hundred twenty-three'],
    [1_000_000, 'one million'],
    [10_000_000, 'ten million'],
  ])('%d -> %s', (n, words) => {
    expect(englishWords(n)).toBe(words);
  });

  it('reads back to the same number up to the QRIS maximum and beyond', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_QRIS_AMOUNT }), (n) => readEnglish(englishWords(n)) === n),
      {
        numRuns: 5000,
      },
    );
    fc.assert(fc.property(fc.integer({ min: 0, max: MAX_SPELLED }), (n) => readEnglish(englishWords(n)) === n));
  });
});

describe('paymentAnnouncement', () => {
  it('says the amount in a sentence of the language', () => {
    expect(paymentAnnouncement(25_123, 'id')).toBe(
      'Pembayaran diterima. Dua puluh lima ribu seratus dua puluh tiga rupiah.',
    );
    expect(paymentAnnouncement(25_123, 'en')).toBe(
      'Payment received. Twenty-five thousand one hundred twenty-three rupiah.',
    );
    expect(paymentAnnouncement(1000, 'id')).toBe('Pembayaran diterima. Seribu rupiah.');
    expect(speechLang('id')).toBe('id-ID');
    expect(speechLang('en')).toBe('en-US');
  });
});
