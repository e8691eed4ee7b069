import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inLanguage, telegramProblemText, type TelegramProblemCode } from '../../src/presentation/telegram-problems.js';

const CODES: TelegramProblemCode[] = [
  'dns',
  'connect',
  'timeout',
  'guard',
  'unreachable',
  'token',
  'chat',
  'blocked',
  'kicked',
  'forbidden',
  'webhook',
  'wait',
  'waitAWhile',
  'username',
  'other',
];

describe('Telegram problems in both languages', () => {
  it('reads every English sentence back into Indonesian, with its values', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CODES),
        fc.domain(),
        fc.string({ minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 3600 }),
        (code, host, detail, seconds) => {
          const vars = { host, detail, seconds };
          const english = telegramProblemText({ code, vars }, 'en');
          const indonesian = telegramProblemText({ code, vars }, 'id');
          expect(inLanguage(english, 'id')).toBe(indonesian);
          expect(inLanguage(english, 'en')).toBe(english);
        },
      ),
    );
  });

  it('says the network failure the issue names in Indonesian, and leaves any other text as it is', () => {
    expect(inLanguage("could not reach api.telegram.org: check the server's internet connection and DNS", 'id')).toBe(
      'tidak dapat menjangkau api.telegram.org: periksa koneksi internet dan DNS server',
    );
    expect(inLanguage('HTTP 500 from discord.com', 'id')).toBe('HTTP 500 from discord.com');
  });
});
