import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell, csvRow } from '../../src/domain/csv.js';
import {
  createdRange,
  parseRupiahText,
  parseSearch,
  parseTransactionFilters,
  wibDate,
  wibDayStart,
} from '../../src/domain/transaction-filters.js';

describe('csvCell', () => {
  it('quotes what needs it and doubles quotes', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(null)).toBe('');
    expect(csvCell(10123)).toBe('10123');
    expect(csvCell(true)).toBe('true');
  });

  it('neutralises every text that a spreadsheet would take as a formula', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      const cell = csvCell(`${start}1+1`);
      expect(cell.replace(/^"/, '').startsWith("'")).toBe(true);
    }
    expect(csvCell('=A1,B1')).toBe(`"'=A1,B1"`);
    expect(csvCell('\rX')).toBe(`"'\rX"`);
  });

  it('round-trips any text through one quoted field', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const cell = csvCell(text);
        const inner = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
        const expected = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
        expect(inner).toBe(expected);
        // Unquoted cells hold no separator, quote or line break.
        if (!cell.startsWith('"')) expect(cell).not.toMatch(/[",\r\n]/);
      }),
    );
  });

  it('ends each record with CRLF', () => {
    expect(csvRow(['a', 1, null, 'b,c'])).toBe('a,1,,"b,c"\r\n');
  });
});

describe('transaction filters', () => {
  it('reads rupiah amounts as people write them', () => {
    expect(parseRupiahText('10123')).toBe(10123);
    expect(parseRupiahText('10.123')).toBe(10123);
    expect(parseRupiahText('Rp 10.123')).toBe(10123);
    expect(parseRupiahText('rp10.123,00')).toBe(10123);
    expect(parseRupiahText('Rp. 1.250.000,-')).toBe(1250000);
    expect(parseRupiahText('10,123')).toBe(10123);
    expect(parseRupiahText('10.12')).toBeNull();
    expect(parseRupiahText('1.0000')).toBeNull();
    expect(parseRupiahText('abc')).toBeNull();
    expect(parseRupiahText('-5')).toBeNull();
  });

  it('knows a trxid and refuses control characters and overlong text', () => {
    expect(parseSearch(' trx_abc123 ')).toEqual({ text: 'trx_abc123', trxid: 'trx_abc123', amount: null });
    expect(parseSearch('order 1')).toEqual({ text: 'order 1', trxid: null, amount: null });
    expect(parseSearch('a\u0000b')).toBeNull();
    expect(parseSearch('x'.repeat(255))).toBeNull();
  });

  it('takes dates as WIB days', () => {
    expect(wibDayStart('2024-05-10')).toBe(Date.parse('2024-05-09T17:00:00Z'));
    expect(wibDayStart('2024-02-30')).toBeNull();
    expect(wibDayStart('2024-5-1')).toBeNull();
    expect(createdRange({ from: '2024-05-10', to: '2024-05-10' })).toEqual({
      from: Date.parse('2024-05-09T17:00:00Z'),
      before: Date.parse('2024-05-10T17:00:00Z'),
    });
    expect(wibDate(Date.parse('2024-05-09T17:00:00Z'))).toBe('2024-05-10');
    expect(wibDate(Date.parse('2024-05-09T16:59:59Z'))).toBe('2024-05-09');
  });

  it('names each field that does not parse', () => {
    expect(
      parseTransactionFilters({
        status: 'paid',
        mode: 'live',
        from: '2024-01-01',
        to: '2024-01-31',
        q: 'x',
        merchant: 'mch_a',
      }),
    ).toEqual({
      filters: {
        status: 'paid',
        mode: 'live',
        from: '2024-01-01',
        to: '2024-01-31',
        search: { text: 'x', trxid: null, amount: null },
        merchantId: 'mch_a',
        cashier: null,
      },
      problems: [],
    });
    expect(parseTransactionFilters({ status: 'x', mode: 'y', from: 'z', to: '2024-13-01' }).problems).toEqual([
      'status',
      'mode',
      'from',
      'to',
    ]);
    expect(parseTransactionFilters({ from: '2024-02-02', to: '2024-02-01' }).problems).toEqual(['range']);
    // A repeated field is not a value.
    expect(parseTransactionFilters({ status: ['paid', 'pending'] }).filters.status).toBeNull();
  });
});
