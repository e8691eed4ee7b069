import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { AppError } from '../../src/domain/errors.js';
import {
  buildQris,
  crc16,
  describeQris,
  encodeField,
  encodeTlv,
  formatCrc,
  inspectQris,
  isStaticQris,
  parseQris,
  parseStaticQris,
  parseTlv,
  toDynamic,
  type TlvField,
} from '../../src/domain/qris/index.js';

interface Vectors {
  crc_check: { input: string; crc: string };
  vectors: Array<{ merchant: string; static: string; cases: Array<{ amount: number; dynamic: string }> }>;
  invalid: Array<{ why: string; payload: string }>;
}

const fixtures = JSON.parse(readFileSync(new URL('../fixtures/qris-vectors.json', import.meta.url), 'utf8')) as Vectors;
const warung = fixtures.vectors[0]!;

function rejection(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError, nothing was thrown');
}

function qrisError(payload: string): string {
  const err = rejection(() => parseQris(payload));
  expect(err.code).toBe('invalid_qris');
  return err.message;
}

/** Raw top-level fields, exactly as they appear in the payload. */
function rawFields(payload: string): string[] {
  return parseTlv(payload).map((f) => encodeField(f.tag, f.value));
}

function tags(payload: string): string[] {
  return parseTlv(payload).map((f) => f.tag);
}

const field = (tag: string, value: string): TlvField => ({ tag, value });
const template = (tag: string, children: TlvField[]): TlvField => ({ tag, value: encodeTlv(children), children });

/** A minimal valid static code; `over` replaces or (with value null) removes fields by tag. */
function staticFields(over: Record<string, string | TlvField[] | null> = {}): TlvField[] {
  const base: Record<string, string | TlvField[]> = {
    '00': '01',
    '01': '11',
    '26': [field('00', 'ID.CO.EXAMPLEPAY.WWW'), field('01', '936000000000000099'), field('03', 'UMI')],
    '51': [field('00', 'ID.CO.QRIS.WWW'), field('02', 'ID1020000000099'), field('03', 'UMI')],
    '52': '5812',
    '53': '360',
    '58': 'ID',
    '59': 'Toko Uji',
    '60': 'DEPOK',
    '62': [field('07', 'A01')],
  };
  const merged: Record<string, string | TlvField[] | null> = { ...base, ...over };
  return Object.keys(merged)
    .sort((a, b) => Number(a) - Number(b))
    .flatMap((tag) => {
      const v = merged[tag];
      if (v === null || v === undefined) return [];
      return [typeof v === 'string' ? field(tag, v) : template(tag, v)];
    });
}

// Bit-at-a-time reference, independent of the table-driven implementation.
function referenceCrc(bytes: Uint8Array): number {
  let crc = 0xffff;
  for (const b of bytes) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

describe('crc16', () => {
  it('gives the CCITT-FALSE check value', () => {
    expect(formatCrc(crc16(fixtures.crc_check.input))).toBe(fixtures.crc_check.crc);
    expect(formatCrc(crc16('123456789'))).toBe('29B1');
  });

  it('formats as exactly 4 upper-case zero-padded digits', () => {
    expect(formatCrc(0)).toBe('0000');
    expect(formatCrc(0x00e5)).toBe('00E5');
    expect(formatCrc(0x0abc)).toBe('0ABC');
    expect(formatCrc(0xffff)).toBe('FFFF');
  });

  it('hashes the UTF-8 bytes, matching a bitwise reference', () => {
    expect(crc16('é')).toBe(referenceCrc(new Uint8Array([0xc3, 0xa9])));
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (s) => {
        expect(crc16(s)).toBe(referenceCrc(Buffer.from(s, 'utf8')));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('parseTlv / encodeTlv', () => {
  it('parses templates into children with raw values kept', () => {
    const fields = parseTlv(warung.static);
    const t26 = fields.find((f) => f.tag === '26')!;
    expect(t26.value.startsWith('0020ID.CO.EXAMPLEPAY.WWW')).toBe(true);
    expect(t26.children?.map((c) => c.tag)).toEqual(['00', '01', '02', '03']);
    expect(fields.find((f) => f.tag === '59')?.children).toBeUndefined();
  });

  it('reports a length that overruns the data with its position', () => {
    const err = rejection(() => parseTlv('00020101021126720020'));
    expect(err.code).toBe('invalid_qris');
    expect(err.message).toBe('bad length at position 14: field 26 declares 72 characters but only 4 remain');
  });

  it('reports nested errors at their position in the whole payload', () => {
    // Template 26 at offset 12; its child 01 (at 12+4+6=22, length digits at 24) declares 50 characters inside a 12-long value.
    const text = '000201010211' + '2612' + '0002AB' + '0150XY';
    expect(rejection(() => parseTlv(text)).message).toBe(
      'bad length at position 24: field 01 declares 50 characters but only 2 remain (inside template 26)',
    );
    expect(rejection(() => parseTlv('0109hello', 100)).message).toMatch(/^bad length at position 102:/);
  });

  it('rejects bad tags, bad lengths and templates that are not TLV', () => {
    expect(rejection(() => parseTlv('hello world')).message).toMatch(/^bad tag at position 0:/);
    expect(rejection(() => parseTlv('0002011')).message).toMatch(/^bad tag at position 6:/);
    expect(rejection(() => parseTlv('00x101')).message).toMatch(/^bad length at position 2:/);
    expect(rejection(() => parseTlv('0000')).message).toMatch(/^bad length at position 2:/);
    expect(rejection(() => parseTlv('2605hello')).message).toMatch(/^bad tag at position 4: .*inside template 26/);
  });

  it('refuses to encode values longer than 99 or empty', () => {
    expect(rejection(() => encodeTlv([field('59', 'x'.repeat(100))])).code).toBe('invalid_qris');
    expect(rejection(() => encodeTlv([field('59', '')])).code).toBe('invalid_qris');
    expect(encodeTlv([field('59', 'x'.repeat(99))])).toBe(`5999${'x'.repeat(99)}`);
  });

  it('round-trips generated TLV trees', () => {
    const tag = fc.integer({ min: 0, max: 99 }).map((n) => String(n).padStart(2, '0'));
    const leaf = fc.record({ tag, value: fc.string({ unit: 'binary', minLength: 1, maxLength: 10 }) });
    const top = tag.chain((t): fc.Arbitrary<TlvField> => {
      const n = Number(t);
      const isTemplate = (n >= 26 && n <= 51) || n === 62 || n === 64 || n >= 80;
      if (isTemplate) return fc.array(leaf, { minLength: 1, maxLength: 4 }).map((children) => template(t, children));
      return fc.string({ unit: 'binary', minLength: 1, maxLength: 49 }).map((value) => field(t, value));
    });
    fc.assert(
      fc.property(fc.array(top, { maxLength: 8 }), (fields) => {
        const text = encodeTlv(fields);
        const parsed = parseTlv(text);
        expect(parsed).toEqual(fields);
        expect(encodeTlv(parsed)).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('parseQris', () => {
  it('extracts the merchant data', () => {
    const p = parseQris(warung.static);
    expect(p).toMatchObject({
      payload: warung.static,
      initiation: 'static',
      amount: null,
      merchantName: 'Warung Contoh',
      merchantCity: 'JAKARTA',
      postalCode: '10110',
      countryCode: 'ID',
      currency: '360',
      mcc: '5812',
      nmid: 'ID1020000000001',
      merchantPan: '936000000000000001',
      acquirer: 'ID.CO.EXAMPLEPAY.WWW',
      criteria: 'UMI',
      crc: '2C3B',
    });
    expect(parseQris(fixtures.vectors[2]!.static)).toMatchObject({
      merchantName: 'Kopi & Roti "Pagi"',
      acquirer: 'ID.CO.EXAMPLEBANK.WWW',
      nmid: 'ID1022000000003',
      criteria: 'UME',
    });
  });

  it('falls back for acquirer, NMID and PAN when templates are unusual', () => {
    const onlyNational = parseQris(buildQris(staticFields({ '26': null })));
    expect(onlyNational.acquirer).toBe('ID.CO.QRIS.WWW');
    expect(onlyNational.merchantPan).toBeNull();
    const no51 = parseQris(
      buildQris(staticFields({ '51': null, '26': [field('00', 'ID.CO.X.WWW'), field('02', 'ID1234567890123')] })),
    );
    expect(no51.nmid).toBe('ID1234567890123');
    expect(no51.criteria).toBeNull();
    const issuer51 = parseQris(
      buildQris(staticFields({ '26': null, '51': [field('00', 'ID.CO.ISSUER.WWW'), field('02', 'ID1')] })),
    );
    expect(issuer51.acquirer).toBe('ID.CO.ISSUER.WWW');
    const noMcc = parseQris(buildQris(staticFields({ '52': null, '01': null })));
    expect(noMcc.mcc).toBeNull();
    expect(noMcc.initiation).toBeNull();
  });

  it('parses integer and acquirer-style decimal amounts', () => {
    expect(parseQris(buildQris(staticFields({ '01': '12', '54': '10000' }))).amount).toBe(10000);
    expect(parseQris(buildQris(staticFields({ '01': '12', '54': '100003.00' }))).amount).toBe(100003);
  });

  const invalidWhy: Record<string, RegExp> = {
    'wrong CRC': /^bad CRC: expected 2C3B, found AAAA$/,
    'length field longer than the data':
      /^bad length at position 14: field 26 declares 72 characters but only 4 remain$/,
    'lowercase CRC hex': /^bad CRC: "2c3b" is not 4 upper-case hex digits$/,
    'no CRC tag': /^missing tag 63 \(CRC\)$/,
    'not a QRIS payload': /^bad tag at position 0/,
  };
  for (const bad of fixtures.invalid) {
    it(`rejects the fixture: ${bad.why}`, () => {
      expect(qrisError(bad.payload)).toMatch(invalidWhy[bad.why] ?? /./);
    });
  }

  it('rejects each structural problem with a message naming it', () => {
    const body = (fields: TlvField[]) => encodeTlv(fields);
    const sign = (text: string) => `${text}6304${formatCrc(crc16(`${text}6304`))}`;
    expect(qrisError('')).toBe('empty QRIS payload');
    expect(qrisError(warung.static + ' '.repeat(513 - warung.static.length))).toMatch(/too long: 513 characters/);
    expect(qrisError(buildQris(staticFields({ '59': null })))).toBe('missing required tag 59 (merchant name)');
    expect(qrisError(buildQris(staticFields({ '53': null })))).toBe('missing required tag 53 (transaction currency)');
    expect(qrisError(buildQris(staticFields({ '58': null })))).toBe('missing required tag 58 (country code)');
    expect(qrisError(buildQris(staticFields({ '60': null })))).toBe('missing required tag 60 (merchant city)');
    expect(qrisError(buildQris(staticFields({ '26': null, '51': null })))).toMatch(/missing required tag 26-51/);
    expect(qrisError(buildQris(staticFields({ '00': null })))).toMatch(/missing tag 00/);
    expect(qrisError(buildQris(staticFields({ '00': '02' })))).toMatch(/tag 00 is "02", expected "01"/);
    expect(qrisError(buildQris(staticFields({ '01': '13' })))).toMatch(/tag 01 is "13"/);
    expect(qrisError(sign(`${body(staticFields())}5802ID`))).toBe('duplicate tag 58');
    for (const amount of ['abc', '1.5', '100.50', '0', '0.00', '12345678901234', '-5']) {
      expect(qrisError(buildQris(staticFields({ '01': '12', '54': amount })))).toMatch(/^bad amount in tag 54/);
    }
    const crcInMiddle = `${body(staticFields({ '59': null }))}630412345908Toko Uji`;
    expect(qrisError(sign(crcInMiddle).slice(0, -8))).toBe('tag 63 (CRC) must be the last field');
    expect(qrisError(`${body(staticFields())}6303ABC`)).toMatch(/tag 63 must have length 04, found 03/);
  });

  it('parseStaticQris rejects dynamic codes and codes with an amount', () => {
    const message = "not a static QRIS: tag 01 is 12 (dynamic); use the merchant's static code";
    expect(parseStaticQris(warung.static).initiation).toBe('static');
    expect(rejection(() => parseStaticQris(warung.cases[0]!.dynamic)).message).toBe(message);
    expect(rejection(() => parseStaticQris(buildQris(staticFields({ '54': '5000' })))).message).toBe(message);
    expect(rejection(() => parseStaticQris(buildQris(staticFields({ '54': '5000' })))).code).toBe('invalid_qris');
  });

  it('describes fields with human names', () => {
    const d = describeQris(parseQris(warung.static));
    expect(d.find((f) => f.tag === '59')).toEqual({ tag: '59', name: 'merchant name', value: 'Warung Contoh' });
    const t26 = d.find((f) => f.tag === '26')!;
    expect(t26.name).toBe('merchant account information');
    expect(t26.children?.map((c) => c.name)).toEqual([
      'globally unique identifier (reverse domain)',
      'merchant PAN',
      'merchant id',
      'merchant criteria',
    ]);
    expect(d.find((f) => f.tag === '62')?.children).toEqual([{ tag: '07', name: 'terminal label', value: 'A01' }]);
    expect(d.at(-1)).toEqual({ tag: '63', name: 'CRC', value: '2C3B' });
  });

  it('buildQris re-creates a canonical payload from its fields', () => {
    for (const v of fixtures.vectors) expect(buildQris(parseQris(v.static).fields)).toBe(v.static);
  });
});

describe('toDynamic: vectors', () => {
  for (const v of fixtures.vectors) {
    it(`converts ${v.merchant}`, () => {
      const parsed = parseStaticQris(v.static);
      for (const c of v.cases) {
        const dynamic = toDynamic(v.static, c.amount);
        expect(dynamic).toBe(c.dynamic);
        expect(toDynamic(parsed, c.amount)).toBe(c.dynamic);
        const back = parseQris(dynamic);
        expect(back.amount).toBe(c.amount);
        expect(back.initiation).toBe('dynamic');
        expect(back.merchantName).toBe(parsed.merchantName);
      }
    });
  }

  it('rejects amounts that are not whole rupiah from 1 to 13 digits', () => {
    for (const amount of [0, -1, 1.5, Number.NaN, Infinity, 1e13, Number.MAX_SAFE_INTEGER + 2]) {
      const err = rejection(() => toDynamic(warung.static, amount));
      expect(err.code).toBe('invalid_amount');
      expect(err.param).toBe('amount');
    }
    expect(parseQris(toDynamic(warung.static, 9_999_999_999_999)).amount).toBe(9_999_999_999_999);
  });

  it('rejects an invalid input payload', () => {
    expect(rejection(() => toDynamic(fixtures.invalid[0]!.payload, 1000)).code).toBe('invalid_qris');
  });

  it('inserts 010212 right after 00 when 01 is absent', () => {
    const dynamic = toDynamic(buildQris(staticFields({ '01': null })), 2500);
    expect(dynamic.startsWith('000201010212')).toBe(true);
    expect(parseQris(dynamic).amount).toBe(2500);
  });
});

describe('toDynamic: known converter defects', () => {
  it('keeps leading zeros of CRCs below 0x1000', () => {
    const low = fixtures.vectors
      .flatMap((v) => v.cases.map((c) => ({ v, c })))
      .filter(({ c }) => c.dynamic.slice(-4) < '1000');
    expect(low.length).toBeGreaterThanOrEqual(4);
    for (const { v, c } of low) {
      const dynamic = toDynamic(v.static, c.amount);
      expect(dynamic).toBe(c.dynamic);
      expect(dynamic).toMatch(/6304[0-9A-F]{4}$/);
    }
  });

  it('adds no tip or fee tags, and keeps an existing fee after the amount', () => {
    for (const v of fixtures.vectors) {
      const out = tags(toDynamic(v.static, 10000));
      expect(out.filter((t) => t === '55' || t === '56' || t === '57')).toEqual([]);
    }
    const withFee = buildQris(staticFields({ '55': '02', '56': '1000' }));
    const out = toDynamic(withFee, 15000);
    expect(tags(out)).toEqual(['00', '01', '26', '51', '52', '53', '54', '55', '56', '58', '59', '60', '62', '63']);
    expect(out).toContain('540515000' + '550202' + '56041000');
  });

  it('leaves merchant data containing 010211 or 5802ID intact', () => {
    const tricky = buildQris(
      staticFields({
        '26': [field('00', 'ID.CO.EXAMPLEPAY.WWW'), field('02', '0102115802ID5404')],
        '59': 'TOKO 010211 5802ID',
        '60': '5802ID010211',
        '62': [field('01', '010211'), field('07', '5802ID')],
      }),
    );
    const dynamic = toDynamic(tricky, 7777);
    const p = parseQris(dynamic);
    expect(p.merchantName).toBe('TOKO 010211 5802ID');
    expect(p.merchantCity).toBe('5802ID010211');
    expect(p.amount).toBe(7777);
    expect(rawFields(dynamic).filter((f) => !/^(01|54|63)/.test(f))).toEqual(
      rawFields(tricky).filter((f) => !/^(01|54|63)/.test(f)),
    );
  });

  it('gives exactly one 54 for an input that is already dynamic', () => {
    const once = toDynamic(warung.static, 1500);
    const twice = toDynamic(once, 2000);
    expect(twice).toBe(toDynamic(warung.static, 2000));
    expect(tags(twice).filter((t) => t === '54')).toHaveLength(1);
    const acquirerDynamic = buildQris(staticFields({ '01': '12', '54': '100003.00' }));
    const redone = toDynamic(acquirerDynamic, 5000);
    expect(tags(redone).filter((t) => t === '54')).toHaveLength(1);
    expect(parseQris(redone).amount).toBe(5000);
  });

  it('keeps templates 27-50, 64 and 80-99 in place', () => {
    const extra = [field('00', 'ID.CO.OTHER.WWW'), field('01', 'X')];
    const input = buildQris(
      staticFields({
        '27': extra,
        '40': extra,
        '50': extra,
        '64': [field('00', 'ID'), field('01', 'Toko')],
        '80': extra,
        '99': extra,
      }),
    );
    const dynamic = toDynamic(input, 12345);
    for (const raw of rawFields(input).filter((f) => /^(2[7-9]|[34]\d|50|64|[89]\d)/.test(f))) {
      expect(dynamic).toContain(raw);
    }
    expect(tags(dynamic)).toEqual([
      '00',
      '01',
      '26',
      '27',
      '40',
      '50',
      '51',
      '52',
      '53',
      '54',
      '58',
      '59',
      '60',
      '62',
      '64',
      '80',
      '99',
      '63',
    ]);
  });

  it('rejects a hand-edited name whose length field no longer matches, with its position', () => {
    const resign = (s: string) => s.slice(0, -4) + formatCrc(crc16(`${s.slice(0, -8)}6304`));
    const longer = resign(warung.static.replace('5913Warung Contoh', '5913Warung Contoh Baru'));
    const after = longer.indexOf('5913Warung Contoh') + 4 + 13;
    expect(qrisError(longer)).toBe(`bad tag at position ${after}: expected 2 digits, found " B"`);
    expect(rejection(() => toDynamic(longer, 1000)).message).toMatch(new RegExp(`position ${after}`));
    const overrun = resign(warung.static.replace('6007JAKARTA', '6099JAKARTA'));
    const lengthAt = overrun.indexOf('6099JAKARTA') + 2;
    const remaining = overrun.length - lengthAt - 2;
    expect(qrisError(overrun)).toBe(
      `bad length at position ${lengthAt}: field 60 declares 99 characters but only ${remaining} remain`,
    );
  });
});

// ---- generated payloads ----

const NAME_CHARS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 &"\'-.,/é'];
const nameChar = fc.constantFrom(...NAME_CHARS);
const digits = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n });
const trap = fc.constantFrom('', '010211', '5802ID', '6304', '5404', '010212');
const freeText = (piece: number) =>
  fc
    .tuple(fc.string({ unit: nameChar, maxLength: piece }), trap, fc.string({ unit: nameChar, maxLength: piece }))
    .map(([a, b, c]) => a + b + c)
    .filter((s) => s.length >= 1);
const subTag = fc.integer({ min: 0, max: 99 }).map((n) => String(n).padStart(2, '0'));
const templateChildren = fc.array(
  fc.record({ tag: subTag, value: fc.string({ unit: nameChar, minLength: 1, maxLength: 12 }) }),
  {
    minLength: 1,
    maxLength: 3,
  },
);
const templates = (min: number, max: number, count: number) =>
  fc.uniqueArray(fc.record({ n: fc.integer({ min, max }), children: templateChildren }), {
    selector: (r) => r.n,
    maxLength: count,
  });

const staticPayload = fc
  .record({
    hasInitiation: fc.boolean(),
    acquirer: fc.constantFrom('ID.CO.EXAMPLEPAY.WWW', 'COM.EXAMPLEWALLET.WWW', 'ID.CO.BANKCONTOH.WWW'),
    pan: digits(14),
    merchantId: fc.string({ unit: nameChar, minLength: 1, maxLength: 15 }),
    criteria: fc.constantFrom('UMI', 'UKE', 'UME', 'UBE'),
    nmid: digits(13),
    accounts: templates(27, 50, 3),
    mcc: fc.option(digits(4), { nil: undefined }),
    fee: fc.constantFrom<Array<[string, string]>>(
      [],
      [['55', '01']],
      [
        ['55', '02'],
        ['56', '1000'],
      ],
      [
        ['55', '03'],
        ['57', '2.5'],
      ],
    ),
    name: freeText(9),
    city: freeText(4),
    postal: fc.option(digits(5), { nil: undefined }),
    additional: fc.option(templateChildren, { nil: undefined }),
    language: fc.option(templateChildren, { nil: undefined }),
    unreserved: templates(80, 99, 2),
    reversed: fc.boolean(),
  })
  .map((g) => {
    const fields: TlvField[] = [
      template('26', [
        field('00', g.acquirer),
        field('01', `9360${g.pan}`),
        field('02', g.merchantId),
        field('03', g.criteria),
      ]),
      ...g.accounts.map((a) => template(String(a.n), a.children)),
      template('51', [field('00', 'ID.CO.QRIS.WWW'), field('02', `ID${g.nmid}`), field('03', g.criteria)]),
      field('53', '360'),
      ...g.fee.map(([t, v]) => field(t, v)),
      field('58', 'ID'),
      field('59', g.name),
      field('60', g.city),
      ...g.unreserved.map((a) => template(String(a.n), a.children)),
    ];
    if (g.hasInitiation) fields.push(field('01', '11'));
    if (g.mcc) fields.push(field('52', g.mcc));
    if (g.postal) fields.push(field('61', g.postal));
    if (g.additional) fields.push(template('62', g.additional));
    if (g.language) fields.push(template('64', g.language));
    fields.sort((a, b) => (Number(a.tag) - Number(b.tag)) * (g.reversed ? -1 : 1));
    return buildQris([field('00', '01'), ...fields]);
  })
  // Leave room for 01 and the longest 54 so the dynamic code stays within 512 characters.
  .filter((p) => p.length <= 490);

const amount = fc.integer({ min: 1, max: 10_000_000 });

describe('toDynamic: properties', () => {
  it('produces a valid code with one 54 = amount and every other field unchanged, in order', () => {
    fc.assert(
      fc.property(staticPayload, amount, (input, amt) => {
        const dynamic = toDynamic(input, amt);
        const parsed = parseQris(dynamic);
        expect(parsed.amount).toBe(amt);
        expect(parsed.initiation).toBe('dynamic');
        expect(parsed.crc).toMatch(/^[0-9A-F]{4}$/);

        const out = parsed.fields;
        expect(out.filter((f) => f.tag === '54')).toEqual([{ tag: '54', value: String(amt) }]);
        expect(out.filter((f) => f.tag === '01')).toEqual([{ tag: '01', value: '12' }]);
        const at = out.findIndex((f) => f.tag === '54');
        expect(out.slice(0, at).every((f) => Number(f.tag) <= 54)).toBe(true);
        expect(Number(out[at + 1]!.tag)).toBeGreaterThan(54);

        const expected = rawFields(input)
          .filter((f) => !f.startsWith('63'))
          .map((f) => (f.startsWith('01') ? '010212' : f));
        if (!expected.includes('010212')) expected.splice(1, 0, '010212');
        expect(rawFields(dynamic).filter((f) => !f.startsWith('54') && !f.startsWith('63'))).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('converting an already dynamic code is the same as converting the static one', () => {
    fc.assert(
      fc.property(staticPayload, amount, amount, (input, a, b) => {
        expect(toDynamic(toDynamic(input, a), b)).toBe(toDynamic(input, b));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('parseQris: robustness', () => {
  function onlyAppErrors(s: string): void {
    try {
      parseQris(s);
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('invalid_qris');
    }
  }

  it('throws only AppError on arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ maxLength: 600 }), onlyAppErrors), { numRuns: 1000 });
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 600 }), onlyAppErrors), { numRuns: 1000 });
    const tlvish = fc.string({ unit: fc.constantFrom(...'0123456789ID.'), maxLength: 120 });
    fc.assert(
      fc.property(tlvish, (s) => onlyAppErrors(`000201${s}`)),
      { numRuns: 1000 },
    );
  });

  it('throws only AppError on well-signed TLV with random fields', () => {
    const anyField = fc.record({ tag: subTag, value: fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }) });
    fc.assert(
      fc.property(fc.array(anyField, { maxLength: 12 }), (fields) =>
        onlyAppErrors(buildQris([field('00', '01'), ...fields])),
      ),
      { numRuns: 1000 },
    );
  });

  it('rejects every single-character change of a valid payload', () => {
    const mutation = staticPayload.chain((p) =>
      fc.tuple(fc.constant(p), fc.nat({ max: p.length - 1 }), fc.integer({ min: 0x20, max: 0x7e })),
    );
    fc.assert(
      fc.property(mutation, ([p, i, code]) => {
        const c = String.fromCharCode(code);
        fc.pre(p[i] !== c);
        const mutated = p.slice(0, i) + c + p.slice(i + 1);
        expect(rejection(() => parseQris(mutated)).code).toBe('invalid_qris');
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(
        fc.nat({ max: warung.static.length - 1 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
        (i, c) => {
          onlyAppErrors(warung.static.slice(0, i) + c + warung.static.slice(i + 1));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('toDynamic and ParsedQris values', () => {
  const staticPayload = (
    JSON.parse(readFileSync(new URL('../fixtures/qris-vectors.json', import.meta.url), 'utf8')) as {
      vectors: Array<{ static: string }>;
    }
  ).vectors[0]!.static;

  it('re-checks a ParsedQris that parseQris did not produce', () => {
    const parsed = parseQris(staticPayload);
    const forged = { ...parsed, payload: `${staticPayload.slice(0, -4)}0000` };
    expect(() => toDynamic(forged, 1000)).toThrow(AppError);
    expect(toDynamic(parsed, 1000)).toBe(toDynamic(staticPayload, 1000));
  });
});

describe('inspectQris and isStaticQris', () => {
  const badCrc = (payload: string) => `${payload.slice(0, -4)}${payload.endsWith('0000') ? '0001' : '0000'}`;

  it('reports a CRC that does not match instead of refusing it, and toDynamic does not trust the result', () => {
    const { parsed, crcValid } = inspectQris(badCrc(warung.static));
    expect(crcValid).toBe(false);
    expect(parsed.merchantName).toBe('Warung Contoh');
    expect(() => toDynamic(parsed, 1000)).toThrow(/bad CRC/);
    expect(inspectQris(warung.static).crcValid).toBe(true);
  });

  it('still refuses what is not a QRIS, and a CRC field that is not 4 hex digits', () => {
    expect(() => inspectQris('hello')).toThrow(AppError);
    expect(() => inspectQris(`${warung.static.slice(0, -4)}zz12`)).toThrow(/bad CRC/);
  });

  it('calls static what parseStaticQris accepts', () => {
    expect(isStaticQris(parseQris(warung.static))).toBe(true);
    expect(isStaticQris(parseQris(warung.cases[0]!.dynamic))).toBe(false);
    expect(() => parseStaticQris(warung.cases[0]!.dynamic)).toThrow(/not a static QRIS/);
  });
});
