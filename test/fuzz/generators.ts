// Hostile requests for every route of the app's route table (issue 23, "the project's own hostile-input
// suite"): shared by test/integration/security/fuzz.test.ts and scripts/fuzz.ts, so a long run explores exactly
// what the suite does, only further.
import fc from 'fast-check';
import { deflateSync } from 'node:zlib';
import type { RouteEntry } from '../../src/http/route-table.js';
import { encodeAll, encodeBytes, headerValue, rawUtf8, urlChar } from './text.js';

/** Who the request claims to be: a console session (cookie and its CSRF token), or nobody. */
export interface Identity {
  name: 'anonymous' | 'operator' | 'merchant';
  cookie: string;
  csrf: string | null;
}

/** Values for one route parameter (raw, not yet encoded). */
export interface ParamValues {
  /** Seeded rows of the merchant the fuzz acts as: used only where nothing can change them (GET, HEAD). */
  seeded: readonly string[];
  /** The other merchant's seeded rows: anyone may read them, and a merchant user must be refused them. */
  foreign: readonly string[];
  /** Rows made for the fuzz to spend (after the snapshot): any request may act on them. */
  spare: readonly string[];
}

/** What the generators need from a seeded gateway. */
export interface FuzzTarget {
  routes: readonly RouteEntry[];
  identities: readonly Identity[];
  /** API keys of the merchant the fuzz acts as. */
  keys: readonly string[];
  /** The values of the parameter in `slot` (a segment index of the route's URL). */
  params(url: string, slot: number): ParamValues;
  /** Id values for queries and bodies (`trxid=...`): never a seeded row a key or login of the fuzz may change. */
  queryIds: readonly string[];
  /**
   * Field names and plain values the app's own forms carry, and the routes its upload forms post to (all
   * read from its pages), so that posts reach the handlers.
   */
  formWords: {
    names: readonly string[];
    values: readonly string[];
    uploadRoutes: ReadonlySet<string>;
    /** The fields of the form that posts to a route (`POST /dashboard/webhooks` → url, events, ...). */
    fieldsByRoute: ReadonlyMap<string, readonly string[]>;
  };
}

export interface FuzzRequest {
  /** The route table entry this request was made for (`POST /dashboard/merchants/:id/rename`). */
  route: string;
  identity: Identity['name'];
  method: string;
  /** The request target as written on the wire (latin1: a char is a byte). */
  path: string;
  headers: Record<string, string>;
  body: Buffer | null;
  /** A short word on what the body is (`json-deep`, `upload-png-1x1`), for the report. */
  bodyKind: string;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'FOO'];

// Names the app's forms and queries use, and a few it does not.
const FIELD_NAMES = [
  'amount',
  'ref',
  'email',
  'expires_in',
  'qr_image',
  'trxid',
  'apikey',
  'limit',
  'cursor',
  'status',
  'mode',
  'q',
  'from',
  'to',
  'merchant',
  'merchantId',
  'merchant_id',
  'name',
  'qris',
  'url',
  'events',
  'handle',
  'password',
  'new_password',
  'current_password',
  'confirm',
  'token',
  'code',
  'next',
  'back',
  'lang',
  'role',
  'merchants',
  'note',
  'kind',
  'secret',
  'source',
  'format',
  'page',
  'sort',
  'id',
  'expired',
  'bye',
  'done',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
];

const HOSTILE_VALUES = [
  '',
  '..',
  '../..',
  '%2e%2e',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '..%2f..%2f..%2fetc%2fpasswd',
  '....//....//etc/passwd',
  '%00',
  'a%00b',
  '%2F',
  '%2f..%2f',
  '%5c..%5c',
  '%25',
  '%',
  '%zz',
  '%C0%AF',
  '%c0%ae%c0%ae',
  '%ff%fe',
  '%E2%80%AE',
  '%EF%BB%BF',
  '%F0%9F%92%A9',
  ';',
  '.',
  '~',
  '%20',
  '+',
  "'",
  '%22',
  '%3Cscript%3E',
  '%24%7B7*7%7D',
  '%7B%7B7*7%7D%7D',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1e308',
  '0x10',
  '99999999999999999999',
  '1.5',
  '10000.005',
  'null',
  'undefined',
  'true',
  '__proto__',
  'constructor',
  'trx_',
  'trx_00000000000000000000',
  'sk_test_',
  'sk_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  'a@b.co',
  'ops@example.test',
  'en',
  'id',
  'xx',
  'png',
  'svg',
];

const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);
const fieldName = (t: FuzzTarget) => pick([...new Set([...FIELD_NAMES, ...t.formWords.names])]);

/** A hostile value, already in URL form (encoded where it must be). */
const hostileUrlValue = fc.oneof(
  { weight: 6, arbitrary: pick(HOSTILE_VALUES) },
  { weight: 2, arbitrary: fc.string({ unit: urlChar, maxLength: 40 }).filter((s) => !/[?&=/]/.test(s)) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map(encodeAll) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 30 }).map(encodeBytes) },
  // Unencoded UTF-8 on the wire (the request line is bytes; Node takes it as latin1).
  { weight: 1, arbitrary: fc.constantFrom('ünïcödé', '日本語', '💩', '\u202eevil', 'a\u200bb', 'é').map(rawUtf8) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 6000 }).map((n) => 'a'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 20, max: 1500 }).map((n) => '%2e%2e%2f'.repeat(n)) },
);

/** The value of one route parameter for this method and viewer (see ParamValues). */
function paramValue(t: FuzzTarget, route: RouteEntry, slot: number, method: string, identity: Identity['name']) {
  const url = route.url;
  const values = t.params(url, slot);
  const reading = method === 'GET' || method === 'HEAD';
  const seeded = reading ? values.seeded : [];
  // A merchant user acting on the other merchant's rows in the logged-in console must be refused; on
  // the public routes a row's id is all it takes (a test payment simulated from its checkout page).
  const guarded = url.startsWith('/dashboard/') && route.config.consolePublic !== true;
  const foreign = reading || (identity === 'merchant' && guarded) ? values.foreign : [];
  const isFile = url.split('/')[slot] === ':file';
  const hostile = isFile
    ? fc.tuple(hostileUrlValue, pick(['.png', '.svg', '', '.gif', '.png.svg', '%2epng'])).map(([v, ext]) => v + ext)
    : hostileUrlValue;
  const choices: Array<{ weight: number; arbitrary: fc.Arbitrary<string> }> = [{ weight: 5, arbitrary: hostile }];
  if (seeded.length > 0) choices.push({ weight: 4, arbitrary: pick(seeded).map(encodeURIComponent) });
  if (foreign.length > 0) choices.push({ weight: 3, arbitrary: pick(foreign).map(encodeURIComponent) });
  if (values.spare.length > 0) choices.push({ weight: 2, arbitrary: pick(values.spare).map(encodeURIComponent) });
  return fc.oneof(...choices);
}

const WILDCARDS = [
  'v1.0/qr/qr-mpm-generate',
  'v1.0/qr/qr-mpm-notify',
  'v1.0/qr/qr-mpm-query',
  'v1.0/access-token/b2b',
  'index.css',
  '../../../../etc/passwd',
  '..%2f..%2fpackage.json',
];

/** The route's pattern with every `:param` and `*` filled in. */
function pathFor(t: FuzzTarget, route: RouteEntry, method: string, identity: Identity['name']): fc.Arbitrary<string> {
  const slots = route.url.split('/').map((part, i) => {
    if (part === '*')
      return fc.oneof(
        hostileUrlValue,
        pick(WILDCARDS),
        fc.tuple(pick(WILDCARDS), hostileUrlValue).map(([w, h]) => `${w}/${h}`),
      );
    if (!part.startsWith(':')) return fc.constant(part);
    return paramValue(t, route, i, method, identity);
  });
  return fc.tuple(...slots).map((filled) => filled.join('/'));
}

const queryValue = (t: FuzzTarget) =>
  fc.oneof(
    { weight: 6, arbitrary: hostileUrlValue },
    { weight: 2, arbitrary: pick(t.queryIds.length > 0 ? t.queryIds : ['trx_x']).map(encodeURIComponent) },
    { weight: 2, arbitrary: pick(t.keys.length > 0 ? t.keys : ['x']) },
    { weight: 1, arbitrary: fc.integer({ min: -10, max: 20_000_000 }).map(String) },
  );

/** A query string: repeats, arrays and nested keys, bare names, odd separators, huge values. */
function queryFor(t: FuzzTarget): fc.Arbitrary<string> {
  const queryName = fc.oneof({ weight: 5, arbitrary: fieldName(t) }, { weight: 1, arbitrary: hostileUrlValue });
  const pair = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(queryName, queryValue(t)).map(([k, v]) => `${k}=${v}`) },
    { weight: 1, arbitrary: fc.tuple(queryName, queryValue(t)).map(([k, v]) => `${k}[]=${v}&${k}[]=${v}`) },
    { weight: 1, arbitrary: fc.tuple(queryName, queryValue(t)).map(([k, v]) => `${k}[0][__proto__][x]=${v}`) },
    { weight: 1, arbitrary: fc.tuple(queryName, queryValue(t)).map(([k, v]) => `${k}=${v}&${k}=${v}`) },
    { weight: 1, arbitrary: queryName },
    {
      weight: 1,
      arbitrary: pick([
        '=',
        '&',
        '&&&',
        '=x',
        ';a=1',
        '%',
        '%%',
        '+=+',
        'a=%ZZ',
        'a=%u0041',
        'next=//evil.example',
        'next=https://evil.example',
        'back=javascript:alert(1)',
      ]),
    },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 3000 }).map((n) => `x=${'y'.repeat(n)}`) },
    { weight: 1, arbitrary: pick(t.keys.length > 0 ? t.keys : ['x']).map((k) => `apikey=${k}`) },
  );
  return fc.oneof(
    { weight: 5, arbitrary: fc.constant('') },
    { weight: 5, arbitrary: fc.array(pair, { minLength: 1, maxLength: 6 }).map((pairs) => `?${pairs.join('&')}`) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 50, max: 400 })
        .map((n) => `?${Array.from({ length: n }, (_, i) => `a${i % 7}=${i}`).join('&')}`),
    },
  );
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=shift_jis',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=x',
  'text/plain',
  'text/html',
  'application/xml',
  'image/png',
  'application/octet-stream',
  '*/*',
  'application/jsonx',
  ';;;',
  'application/json;;charset=',
  `application/json; x=${'a'.repeat(900)}`,
  'APPLICATION/JSON',
  'application/merge-patch+json',
  'application/vnd.api+json',
];

/** Headers for one identity: its session (or a spoiled one), and hostile extras. */
function headersFor(t: FuzzTarget, identity: Identity): fc.Arbitrary<Record<string, string>> {
  const cookie = fc.oneof(
    { weight: 8, arbitrary: fc.constant(identity.cookie) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1000, max: 30_000 }).map((n) => `${identity.cookie}; junk=${'c'.repeat(n)}`),
    },
    { weight: 1, arbitrary: fc.constant(`qg_session=${'z'.repeat(64)}; qg_session=; qg_csrf=s:abc.def; qg_lang=xx`) },
    { weight: 1, arbitrary: headerValue.map((v) => `${identity.cookie}; ${v}`) },
  );
  const key = pick([...t.keys, 'sk_test_', 'x']);
  return fc
    .record(
      {
        cookie,
        'x-forwarded-for': fc.oneof(
          pick([
            '1.2.3.4',
            '1.2.3.4, 5.6.7.8',
            'unknown',
            '999.999.999.999',
            '::ffff:10.0.0.1',
            '[::1]:80',
            ', ,',
            'a'.repeat(3000),
          ]),
          headerValue,
        ),
        authorization: fc.oneof(
          pick(['Bearer', 'Bearer ', 'Basic !!!', 'Basic YTpi', 'Digest x', `Bearer ${'A'.repeat(5000)}`]),
          key.map((k) => `Bearer ${k}`),
          headerValue,
        ),
        'x-api-key': fc.oneof(key, headerValue),
        'accept-language': fc.oneof(pick(['id', 'en', 'id-ID,id;q=0.9', '*;q=2', 'xx-YY;q=abc']), headerValue),
        accept: pick(['*/*', 'text/event-stream', 'application/json', 'text/html', 'image/*', '']),
        'x-request-id': headerValue,
        'idempotency-key': headerValue,
        'user-agent': fc.oneof(headerValue, fc.constant('u'.repeat(4000))),
        origin: pick(['https://evil.example', 'null', 'http://127.0.0.1']),
        referer: pick(['https://evil.example/', 'javascript:alert(1)']),
        'last-event-id': headerValue,
        range: pick(['bytes=0-0', 'bytes=999999999-', 'bytes=-1', 'bytes=a-b']),
        'if-none-match': headerValue,
        host: pick(['evil.example', 'localhost:1', '[::1]', 'a'.repeat(300)]),
      },
      { requiredKeys: ['cookie'] },
    )
    .map((h) => {
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(h)) if (v !== '' || k === 'cookie') out[k] = v;
      if (out.cookie === '') delete out.cookie;
      return out;
    });
}

// Plain values a person types into a form, so that a form's own fields pass its first checks.
const PLAIN = [
  '',
  '',
  'Warung Fuzz',
  'fuzz@example.test',
  '10000',
  '25000',
  'test',
  'live',
  'on',
  'http://127.0.0.1:9/hook',
  'a long passphrase 123',
];

/**
 * A form's fields: the identity's CSRF token (or a wrong one, or none); then often the route's own
 * form's fields with plain or hostile values (so that the handler behind the first checks is reached),
 * else any fields.
 */
function formFields(t: FuzzTarget, identity: Identity, route: RouteEntry): fc.Arbitrary<Array<[string, string]>> {
  const csrf = fc.oneof(
    { weight: 4, arbitrary: fc.constant(identity.csrf ?? '') },
    { weight: 1, arbitrary: pick(['', 'x', `${identity.csrf ?? ''}x`]) },
    { weight: 1, arbitrary: fc.constant(null) },
  );
  const value = fc.oneof(
    { weight: 4, arbitrary: hostileUrlValue.map((v) => safeDecode(v)) },
    { weight: 2, arbitrary: pick(t.queryIds.length > 0 ? t.queryIds : ['x']) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
    {
      weight: 1,
      arbitrary: pick([
        'https://127.0.0.1:1/hook',
        'http://169.254.169.254/latest',
        'file:///etc/passwd',
        'transaction.paid',
        'operator',
        'merchant',
        'on',
      ]),
    },
    { weight: 3, arbitrary: pick(t.formWords.values.length > 0 ? t.formWords.values : ['x']) },
  );
  const field = fc.tuple(fieldName(t), value);
  const own = t.formWords.fieldsByRoute.get(`${route.method} ${route.url}`) ?? [];
  const ownFields =
    own.length === 0
      ? fc.array(field, { maxLength: 8 })
      : fc.oneof(
          { weight: 1, arbitrary: fc.array(field, { maxLength: 8 }) },
          {
            weight: 2,
            // Each field often left out, as a person leaves one of two alternatives (a payload or a picture).
            arbitrary: fc
              .tuple(
                ...own.map((name) =>
                  fc.option(
                    fc
                      .oneof(
                        { weight: 3, arbitrary: pick([...PLAIN, ...t.formWords.values]) },
                        { weight: 1, arbitrary: value },
                      )
                      .map((v) => [name, v] as [string, string]),
                    { freq: 2 },
                  ),
                ),
              )
              .map((fields) => fields.filter((f): f is [string, string] => f !== null)),
          },
        );
  return fc
    .tuple(csrf, ownFields)
    .map(([token, fields]) => (token === null ? fields : [['_csrf', token] as [string, string], ...fields]));
}

function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v) ?? 'null');

/** A 1x1 PNG, correct in every byte. */
export function pngOnePixel(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from([0, 0]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const PNG_1X1 = pngOnePixel();
const UPLOADS: Record<string, Buffer> = {
  'png-1x1': PNG_1X1,
  'png-truncated': PNG_1X1.subarray(0, 30),
  'png-magic-only': PNG_1X1.subarray(0, 8),
  'jpeg-truncated': Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]),
  'gif-garbage': Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(40, 0xff)]),
  'png-magic-jpeg-body': Buffer.concat([
    PNG_1X1.subarray(0, 8),
    Buffer.from([0xff, 0xd8, 0xff, 0xdb]),
    Buffer.alloc(60, 7),
  ]),
  'webp-header': Buffer.concat([Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1'), Buffer.alloc(16)]),
  svg: Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="99999" height="99999"><script>alert(1)</script></svg>',
  ),
  empty: Buffer.alloc(0),
};

/** A multipart body: fields, and a file that is garbage, tiny, truncated or of the wrong kind. */
function multipartFor(
  t: FuzzTarget,
  identity: Identity,
  route: RouteEntry,
): fc.Arbitrary<{ body: Buffer; type: string; kind: string }> {
  const file = fc.oneof(
    { weight: 3, arbitrary: pick(Object.keys(UPLOADS)).map((k) => ({ kind: k, bytes: UPLOADS[k]! })) },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ maxLength: 400 }).map((b) => ({ kind: 'garbage', bytes: Buffer.from(b) })),
    },
  );
  return fc
    .record({
      fields: formFields(t, identity, route),
      file,
      fileField: pick(['image', 'image', 'image', 'image', 'file', 'qris', '__proto__']),
      fileType: pick(['image/png', 'image/jpeg', 'application/octet-stream', 'text/html', '']),
      spoil: fc.oneof(
        { weight: 4, arbitrary: fc.constant('none') },
        { weight: 1, arbitrary: pick(['no-end', 'bad-boundary', 'two-files', 'no-disposition']) },
      ),
    })
    .map(({ fields, file, fileField, fileType, spoil }) => {
      const boundary = 'fuzzboundary7MA4YWxk';
      const parts: Buffer[] = fields.map(([k, v]) =>
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`),
      );
      const fileHead = (name: string) =>
        spoil === 'no-disposition'
          ? `--${boundary}\r\nContent-Type: ${fileType}\r\n\r\n`
          : `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="qr.png"\r\n${fileType ? `Content-Type: ${fileType}\r\n` : ''}\r\n`;
      parts.push(Buffer.from(fileHead(fileField)), file.bytes, Buffer.from('\r\n'));
      if (spoil === 'two-files') parts.push(Buffer.from(fileHead('image2')), file.bytes, Buffer.from('\r\n'));
      if (spoil !== 'no-end') parts.push(Buffer.from(`--${boundary}--\r\n`));
      const type =
        spoil === 'bad-boundary' ? 'multipart/form-data; boundary=other' : `multipart/form-data; boundary=${boundary}`;
      return { body: Buffer.concat(parts), type, kind: `upload-${file.kind}${spoil === 'none' ? '' : `-${spoil}`}` };
    });
}

/** A body and its content type (null: let the headers' own content type stand). */
function bodyFor(
  t: FuzzTarget,
  route: RouteEntry,
  identity: Identity,
): fc.Arbitrary<{ body: Buffer | null; type: string | null; kind: string }> {
  const form = (fields: Array<[string, string]>) =>
    fields.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  const kinds: Array<{
    weight: number;
    arbitrary: fc.Arbitrary<{ body: Buffer | null; type: string | null; kind: string }>;
  }> = [
    { weight: 2, arbitrary: fc.constant({ body: null, type: null, kind: 'none' }) },
    {
      weight: 4,
      arbitrary: formFields(t, identity, route).map((f) => ({
        body: Buffer.from(form(f)),
        type: 'application/x-www-form-urlencoded',
        kind: 'form',
      })),
    },
    {
      weight: 1,
      arbitrary: formFields(t, identity, route).map((f) => ({
        body: Buffer.from(`${form(f)}&a[b][c][d]=1&__proto__[polluted]=1&constructor[prototype][polluted]=1&x=1&x=2`),
        type: 'application/x-www-form-urlencoded',
        kind: 'form-nested',
      })),
    },
    {
      weight: 1,
      arbitrary: pick([
        '{',
        '{"a":',
        '[1,2',
        '{"a":1}}',
        'nul',
        '\u0000',
        '\ufeff{"amount":1}',
        '{"a":"\\ud800"}',
        '{"amount":1e999}',
        '"str"',
        '[]',
        '{"a":1,"a":2}',
      ]).map((s) => ({ body: Buffer.from(s), type: 'application/json', kind: 'json-malformed' })),
    },
    {
      weight: 2,
      arbitrary: fc
        .dictionary(
          fieldName(t),
          fc.oneof(
            fc.jsonValue({ maxDepth: 2 }),
            hostileUrlValue.map(safeDecode),
            pick(t.queryIds.length > 0 ? t.queryIds : ['x']),
          ),
          {
            maxKeys: 8,
          },
        )
        .map((o) => ({
          body: json({ ...o, _csrf: identity.csrf }),
          type: 'application/json',
          kind: 'json-wrong-types',
        })),
    },
    {
      weight: 1,
      arbitrary: pick([
        '{"__proto__":{"polluted":1}}',
        '{"constructor":{"prototype":{"polluted":1}}}',
        '{"amount":1,"__proto__":{"amount":2}}',
      ]).map((s) => ({
        body: Buffer.from(s),
        type: 'application/json',
        kind: 'json-proto',
      })),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 200, max: 20_000 }).chain((depth) =>
        pick([
          { body: Buffer.from('['.repeat(depth) + ']'.repeat(depth)), type: 'application/json', kind: 'json-deep' },
          {
            body: Buffer.from(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
            type: 'application/json',
            kind: 'json-deep',
          },
          {
            body: Buffer.from(`a${'[a]'.repeat(depth)}=1`),
            type: 'application/x-www-form-urlencoded',
            kind: 'form-deep',
          },
        ]),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 16_000, max: 400_000 }).chain((n) =>
        pick([
          { body: Buffer.from(JSON.stringify({ amount: 'x'.repeat(n) })), type: 'application/json', kind: 'json-huge' },
          { body: Buffer.from(`name=${'n'.repeat(n)}`), type: 'application/x-www-form-urlencoded', kind: 'form-huge' },
          { body: Buffer.alloc(n, 0x41), type: null, kind: 'bytes-huge' },
        ]),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => ({ body: Buffer.from(b), type: null, kind: 'bytes' })),
    },
    {
      weight: 3,
      arbitrary: multipartFor(t, identity, route).map((m) => ({ body: m.body, type: m.type, kind: m.kind })),
    },
  ];
  // A route an upload form posts to mostly gets uploads: the image reader is what it is there for.
  if (t.formWords.uploadRoutes.has(`${route.method} ${route.url}`))
    kinds.push({
      weight: 30,
      arbitrary: multipartFor(t, identity, route).map((m) => ({ body: m.body, type: m.type, kind: m.kind })),
    });
  return fc.oneof(...kinds);
}

// Routes that would end the fuzz's own login: posted to without a valid CSRF token, so the session lives.
const SESSION_ENDING = new Set(['POST /dashboard/logout']);

/** One hostile request for one route of the table, as one identity. */
export function requestFor(t: FuzzTarget, route: RouteEntry, given: Identity): fc.Arbitrary<FuzzRequest> {
  const identity = SESSION_ENDING.has(`${route.method} ${route.url}`) ? { ...given, csrf: null } : given;
  const method = fc.oneof({ weight: 8, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: pick(METHODS) });
  return method.chain((m) =>
    fc
      .record({
        path: pathFor(t, route, m, identity.name),
        query: queryFor(t),
        headers: headersFor(t, identity),
        body: bodyFor(t, route, identity),
        odd: fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: pick(CONTENT_TYPES) }),
      })
      .map(({ path, query, headers, body, odd }) => {
        const h = { ...headers };
        const sendsBody = m !== 'GET' && m !== 'HEAD' && m !== 'TRACE' && body.body !== null;
        if (sendsBody && (odd ?? body.type)) h['content-type'] = (odd ?? body.type)!;
        return {
          route: `${route.method} ${route.url}`,
          identity: identity.name,
          method: m,
          path: path + query,
          headers: h,
          body: sendsBody ? body.body : null,
          bodyKind: sendsBody ? (odd ? `${body.kind} as ${odd.slice(0, 40)}` : body.kind) : 'none',
        };
      }),
  );
}

/**
 * Any route of the table, as any identity: the arbitrary a fuzz run samples from. A path is picked first,
 * then one of its methods, so that a path with many methods (the API's refusals of PUT, PATCH, DELETE and
 * OPTIONS, HEAD twins) weighs no more than one with a single form behind it.
 */
export function anyRequest(t: FuzzTarget): fc.Arbitrary<FuzzRequest> {
  const byUrl = new Map<string, RouteEntry[]>();
  for (const route of t.routes) byUrl.set(route.url, [...(byUrl.get(route.url) ?? []), route]);
  return fc
    .tuple(pick([...byUrl.values()]), pick(t.identities))
    .chain(([routes, identity]) => pick(routes).chain((route) => requestFor(t, route, identity)));
}
