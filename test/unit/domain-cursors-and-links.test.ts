import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashLinkToken, LINK_TOKEN } from '../../src/domain/account-link.js';
import { ACCOUNT_THROTTLE, ADDRESS_THROTTLE, loginKeys } from '../../src/domain/console-session.js';
import { AppError } from '../../src/domain/errors.js';
import { decodeCursor, encodeCursor } from '../../src/domain/transaction-cursor.js';
import { EVENT_TYPES, parseEventList, subscribes } from '../../src/domain/webhook-events.js';

// The pure rules that moved out of the services (issue 24, item 8): each as its service used it.

describe('a transaction list cursor', () => {
  it('decodes what it encoded', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999_999_999_999_999 }),
        fc.stringMatching(/^[0-9A-Za-z]{1,64}$/),
        (createdAt, tail) => {
          const id = `trx_${tail}`;
          expect(decodeCursor(encodeCursor(createdAt, id))).toEqual({ createdAt, id });
        },
      ),
    );
  });

  it('refuses a cursor it did not make, naming the parameter', () => {
    for (const bad of [
      '',
      'not a cursor',
      encodeCursor(1, 'pay_1'),
      Buffer.from('1:trx_1:x').toString('base64url'),
      'x'.repeat(201),
    ]) {
      let error: unknown;
      try {
        decodeCursor(bad);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('invalid_parameter');
    }
  });
});

describe("an endpoint's subscriptions", () => {
  it('takes the listed types, or every type with *', () => {
    expect(subscribes('["transaction.paid"]', 'transaction.paid')).toBe(true);
    expect(subscribes('["transaction.paid"]', 'transaction.expired')).toBe(false);
    expect(subscribes('["*"]', 'payment.unmatched')).toBe(true);
  });

  it('reads a typed list: empty or * is every type, repeats once, an unknown type refused naming events', () => {
    expect(parseEventList(undefined)).toEqual(['*']);
    expect(parseEventList(' * ')).toEqual(['*']);
    expect(parseEventList('transaction.paid, transaction.paid,payment.unmatched')).toEqual([
      'transaction.paid',
      'payment.unmatched',
    ]);
    expect(EVENT_TYPES).toContain('transaction.cancelled');
    expect(() => parseEventList('transaction.paid,nope')).toThrow(AppError);
  });

  it('takes nothing when the stored list cannot be read', () => {
    expect(subscribes('not json', 'transaction.paid')).toBe(false);
    expect(subscribes('{"transaction.paid":true}', 'transaction.paid')).toBe(false);
  });
});

describe("a mailed link's token", () => {
  it('is looked up only in its own shape, and stored only as its hash', () => {
    const token = 'A'.repeat(43);
    expect(LINK_TOKEN.test(token)).toBe(true);
    expect(LINK_TOKEN.test(`${token}A`)).toBe(false);
    expect(LINK_TOKEN.test('A'.repeat(42))).toBe(false);
    expect(hashLinkToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashLinkToken(token)).not.toBe(hashLinkToken('B'.repeat(43)));
  });
});

describe('the login counters of one attempt', () => {
  it('are the typed account, hashed, and the client address, each with its rule', () => {
    const keys = loginKeys('one@shop.test', '198.51.100.7');
    expect(keys.map((k) => k.rule)).toEqual([ACCOUNT_THROTTLE, ADDRESS_THROTTLE]);
    expect(keys[0]!.key).toMatch(/^account:[0-9a-f]{64}$/);
    expect(keys[0]!.key).not.toContain('one@shop.test');
    expect(keys[1]!.key).toBe('address:198.51.100.7');
  });

  it('counts an IPv6 client per /64', () => {
    const [, a] = loginKeys('x@shop.test', '2001:db8::1');
    const [, b] = loginKeys('x@shop.test', '2001:db8::ffff');
    expect(a!.key).toBe(b!.key);
  });
});
