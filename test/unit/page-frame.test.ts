// Every page the gateway serves is written in one frame (src/web/page-frame.ts): no other file under
// src/web writes a doctype, and the frame's head holds what each kind of page needs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, sourceFiles } from '../helpers/source-files.js';
import { html } from '../../src/domain/html.js';
import { pageFrame } from '../../src/web/page-frame.js';

const ROOT = REPO_ROOT;

describe('the one page frame', () => {
  it('is the only file under src/web that writes a doctype', () => {
    const writers = sourceFiles('src/web').filter((file) =>
      /<!doctype html>/i.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(writers).toEqual(['src/web/page-frame.ts']);
  });

  it("a payer's page: noindex, no referrer, its styles in order, the icon, deferred scripts, escaped title", () => {
    const page = pageFrame({
      lang: 'id',
      title: 'Bayar <Toko> & Co',
      payerPage: true,
      stylesheets: ['/a.css', '/b.css'],
      icon: '/i.svg',
      scripts: ['/c.js'],
      bodyClass: 'paper-58',
      body: html`<main>x</main>`,
    });
    expect(page.startsWith('<!doctype html>\n<html lang="id">\n<head>\n<meta charset="utf-8">')).toBe(true);
    expect(page).toContain('<meta name="robots" content="noindex">');
    expect(page).toContain('<meta name="referrer" content="no-referrer">');
    expect(page).toContain('<title>Bayar &lt;Toko&gt; &amp; Co</title>');
    expect(page.indexOf('/a.css')).toBeLessThan(page.indexOf('/b.css'));
    expect(page).toContain('<link rel="icon" type="image/svg+xml" href="/i.svg">');
    expect(page).toContain('<script src="/c.js" defer></script>');
    expect(page).toContain('<body class="paper-58">\n<main>x</main>\n</body>\n</html>');
  });

  it('a console page: same-origin referrer, indexed, its extra head, no icon when none is given', () => {
    const page = pageFrame({
      lang: 'en',
      title: 'Kasir',
      stylesheets: ['/console.css'],
      head: html`<link rel="manifest" href="/m.webmanifest">`,
      body: html`<p>y</p>`,
    });
    expect(page).toContain('<meta name="referrer" content="same-origin">');
    expect(page).not.toContain('robots');
    expect(page).not.toContain('rel="icon"');
    expect(page).toContain('<link rel="manifest" href="/m.webmanifest">\n</head>\n<body>\n<p>y</p>');
  });
});
