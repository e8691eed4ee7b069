import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../../../src/http/route-table.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';

// The rules of issue 24 for the edges, checked over the whole tree and the whole route table, so a new page
// or a new file is held to them the day it is added.
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const offenders = (dirs: string[], pattern: RegExp, except: (file: string) => boolean = () => false) =>
  dirs.flatMap(filesUnder).filter((file) => !except(file) && pattern.test(readFileSync(file, 'utf8')));

// The shapes words took in the code before they moved to words files: a language picked by a ternary, a
// table or object keyed by both languages, and words written straight into an element marked with its
// language (where the words come through a translator, the element holds `${...}`).
const INLINE_WORDS = new RegExp(
  [
    /[!=]==\s*'(?:en|id)'\s*\?\s*['"`]/u.source,
    /\bid:\s*\{[\s\S]*\ben:\s*\{|\ben:\s*\{[\s\S]*\bid:\s*\{/u.source,
    /\{\s*(?:id|en):\s*['"`][^'"`]*['"`],\s*(?:id|en):/u.source,
    /\blang="(?:en|id)">[^<$]*\p{L}{2}/u.source,
  ].join('|'),
  'u',
);

// A sample of each scheme, mostly excerpts of the old code (issue 24): the check must find every one. (The
// payment-link pages' old payWords was defineMessages outside a words file, which the first check finds.)
const OLD_SCHEMES = [
  // a language picked by a ternary:
  "const title = lang === 'id' ? 'Bayar' : 'Pay';",
  // the account mails' typed table, and the receipt's:
  "const WORDS: Record<AccountMailKind, { id: Words; en: Words }> = {\n  verify: {\n    id: {\n      subject: 'Konfirmasi',\n    },\n    en: {\n      subject: 'Confirm',",
  "const RECEIPT_WORDS: Record<Section['lang'], ReceiptWords> = {\n  id: {\n    heading: 'Pembayaran diterima',\n  },\n  en: {\n    heading: 'Payment received',",
  "const label = { id: 'Tagihan', en: 'Invoice' };",
  // the checkout page, both languages inline:
  '<p>Mode sandbox: tidak ada uang sungguhan. <span lang="en">Sandbox mode: no real money.</span></p>',
  '<p class="label">Total yang harus dibayar <span lang="en">/ Amount to pay</span></p>',
];

describe('the edges', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      CONSOLE: 'true',
      SIGNUP: 'open',
      SMTP_URL: 'smtp://127.0.0.1:9',
      MAIL_FROM: 'gateway@example.com',
    });
  });
  afterAll(async () => t.close());

  it('every page route declares a schema for what it reads: a console POST its form, a path its params', () => {
    const pages = routeTable(t.app).filter((r) => /^\/(dashboard|checkout|pay)(\/|$)/.test(r.url));
    expect(pages.length).toBeGreaterThan(40);
    const missing = pages.flatMap((r) => [
      ...(r.method === 'POST' && r.url.startsWith('/dashboard') && !r.declares.body
        ? [`${r.method} ${r.url}: no body schema`]
        : []),
      ...(r.url.includes('/:') && !r.declares.params ? [`${r.method} ${r.url}: no params schema`] : []),
    ]);
    expect(missing).toEqual([]);
  });

  it('no page reads its request through a cast or an ad-hoc helper', () => {
    expect(
      offenders(
        ['src/web'],
        /request\.(query|body|params)\s+as\b|\.(get|post|head)<\{|\b(queryValue|fieldList)\(|[^.\w]field\(request/,
        (f) => f.endsWith('web/forms.ts'),
      ),
    ).toEqual([]);
  });

  it('no notice travels in a URL', () => {
    expect(offenders(['src/web'], /[?&]done=/)).toEqual([]);
  });

  it('money and time are formatted in one place each', () => {
    // formatRupiah (domain/money.ts) and formatTime (presentation/format.ts).
    expect(
      offenders(
        ['src/web', 'src/mail', 'src/presentation'],
        /toLocaleString\(|Intl\.DateTimeFormat|Intl\.NumberFormat/,
        (f) => f.endsWith('presentation/format.ts'),
      ),
    ).toEqual([]);
  });

  // Every page's and mail's words are in a `.words.ts` file beside it (or in presentation/shared-texts.ts),
  // written with defineMessages, and reach the HTML or the mail through the kit's translator.
  it('words are in words files, written with defineMessages: the console, the checkout and payment-link pages, the mails', () => {
    const isWordsFile = (f: string) => f.endsWith('.words.ts');
    expect(offenders(['src/web', 'src/mail'], /defineMessages\(/, isWordsFile)).toEqual([]);
    expect(offenders(['src/web', 'src/mail'], INLINE_WORDS, isWordsFile)).toEqual([]);
  });

  it('the check for inline words catches each scheme the words were kept in before', () => {
    const caught = OLD_SCHEMES.filter((sample) => INLINE_WORDS.test(sample));
    expect(caught).toEqual(OLD_SCHEMES);
  });
});
