import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../../src/http/route-table.js';
import { createTestApp, type TestApp } from '../helpers/context.js';

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

describe('the edges', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ CONSOLE: 'true', SIGNUP: 'open', SMTP_URL: 'smtp://127.0.0.1:9', MAIL_FROM: 'gateway@example.com' });
  });
  afterAll(async () => t.close());

  it('every page route declares a schema for what it reads: a console POST its form, a path its params', () => {
    const pages = routeTable(t.app).filter((r) => /^\/(dashboard|checkout|pay)(\/|$)/.test(r.url));
    expect(pages.length).toBeGreaterThan(40);
    const missing = pages.flatMap((r) => [
      ...(r.method === 'POST' && r.url.startsWith('/dashboard') && !r.declares.body ? [`${r.method} ${r.url}: no body schema`] : []),
      ...(r.url.includes('/:') && !r.declares.params ? [`${r.method} ${r.url}: no params schema`] : []),
    ]);
    expect(missing).toEqual([]);
  });

  it('no page reads its request through a cast or an ad-hoc helper', () => {
    expect(
      offenders(['src/web'], /request\.(query|body|params)\s+as\b|\.(get|post|head)<\{|\b(queryValue|fieldList)\(|[^.\w]field\(request/, (f) =>
        f.endsWith('web/forms.ts'),
      ),
    ).toEqual([]);
  });

  it('no notice travels in a URL', () => {
    expect(offenders(['src/web'], /[?&]done=/)).toEqual([]);
  });

  it('money and time are formatted in one place each', () => {
    // formatRupiah (domain/money.ts) and formatTime (presentation/format.ts).
    expect(
      offenders(['src/web', 'src/mail', 'src/presentation'], /toLocaleString\(|Intl\.DateTimeFormat|Intl\.NumberFormat/, (f) =>
        f.endsWith('presentation/format.ts'),
      ),
    ).toEqual([]);
  });

  // The console's pages; the payer's link pages and the mails still keep theirs inline (issue 24, left).
  it('console words are in words files, written with defineMessages', () => {
    const inline = offenders(['src/web/console'], /defineMessages\(/, (f) => f.endsWith('.words.ts'));
    expect(inline).toEqual([]);
  });
});
