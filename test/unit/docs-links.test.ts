// issue 39, section 1: the docs hold together. Every relative link and #anchor between README.md,
// CONTRIBUTING.md, ARCHITECTURE.md and docs/**/*.md resolves (the file or folder exists; an anchor is a
// heading's GitHub slug in the page it names), README.md links every page of docs/ and stays short.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../helpers/processes.js';

const README_MAX_BYTES = 12 * 1024;

/** A fenced code block, its fences indented or not (a block inside a list item is). */
const FENCED_BLOCK = /^ *```[^\n]*\n[\s\S]*?^ *```[^\n]*$/gm;

/** The pages checked, as paths from the repository's root. */
function docPages(): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name))
    .sort();
  return ['README.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md', ...docs];
}

/** The text outside fenced code blocks and inline code spans, where links and headings are. */
function prose(markdown: string): string {
  return markdown.replace(FENCED_BLOCK, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: links reduced to their text, lower case, punctuation dropped, spaces to hyphens. */
function githubSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page has: its headings' slugs, a repeated one with -1, -2, ... as GitHub numbers them. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const withoutCode = markdown.replace(FENCED_BLOCK, '');
  for (const m of withoutCode.matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const slug = githubSlug(m[1]!);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** The targets of a page's inline links and images, external ones (with a scheme) left out. */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?: +"[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/**
 * What is wrong with the links of these pages: `page: target (why)` for each link to a file or folder that
 * does not exist, or to an anchor its page lacks. `read` gives a page's text by its path from the root.
 */
function brokenLinks(
  pages: string[],
  read: (path: string) => string | undefined,
  exists: (path: string) => boolean,
): string[] {
  const problems: string[] = [];
  for (const page of pages) {
    for (const target of relativeLinks(read(page) ?? '')) {
      const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
      const path = pathPart === '' ? page : normalize(join(dirname(page), decodeURI(pathPart))).replace(/\/$/, '');
      if (path.startsWith('..') || !exists(path)) {
        problems.push(`${page}: ${target} (no such file)`);
        continue;
      }
      if (anchor === undefined) continue;
      const text = path.endsWith('.md') ? read(path) : undefined;
      if (text === undefined)
        problems.push(`${page}: ${target} (an anchor into something that is not a Markdown page)`);
      else if (!anchorsOf(text).has(anchor))
        problems.push(`${page}: ${target} (${path} has no heading with that anchor)`);
    }
  }
  return problems;
}

const readPage = (path: string): string | undefined => {
  const full = join(root, path);
  return existsSync(full) && statSync(full).isFile() ? readFileSync(full, 'utf8') : undefined;
};
const existsInRepo = (path: string): boolean => existsSync(join(root, path));

describe('the docs', () => {
  const pages = docPages();

  it('are there: README, CONTRIBUTING, ARCHITECTURE, the pages of docs/ and the decision records', () => {
    expect(pages.filter((page) => /^docs\/[^/]+\.md$/.test(page)).length).toBeGreaterThanOrEqual(10);
    expect(pages.filter((page) => page.startsWith('docs/adr/')).length).toBeGreaterThanOrEqual(5);
  });

  it('link only to files that exist and to anchors their pages have', () => {
    expect(brokenLinks(pages, readPage, existsInRepo)).toEqual([]);
  });

  it('README links every page of docs/', () => {
    const linked = new Set(relativeLinks(readPage('README.md')!).map((target) => normalize(target.split('#')[0]!)));
    expect(pages.filter((page) => /^docs\/[^/]+\.md$/.test(page) && !linked.has(page))).toEqual([]);
  });

  it(`README.md is at most ${README_MAX_BYTES} bytes`, () => {
    expect(statSync(join(root, 'README.md')).size).toBeLessThanOrEqual(README_MAX_BYTES);
  });
});

describe('the link check', () => {
  const pages: Record<string, string> = {
    'README.md': [
      '# Title',
      '[ok](docs/a.md#a-heading-with-code) [ok too](#title) [folder](docs/) ![pic](docs/x.png) [web](https://example.com/#x)',
      '[missing file](docs/nope.md) [missing anchor](docs/a.md#nowhere) [own missing anchor](#nope)',
      '```sh',
      '[in code](docs/ignored.md)',
      '```',
      'and `[inline code](docs/ignored-too.md)`',
    ].join('\n'),
    'docs/a.md':
      '# A heading with `code`\n\n## Same\n\n## Same\n\n[up](../README.md#title) [second same](#same-1) [no third](#same-2)',
  };
  const files = new Set(['README.md', 'docs', 'docs/a.md', 'docs/x.png']);
  const problems = brokenLinks(
    Object.keys(pages),
    (path) => pages[path],
    (path) => files.has(path),
  );

  it('reports a missing file, a missing anchor in another page or its own, and nothing in code', () => {
    expect(problems).toEqual([
      'README.md: docs/nope.md (no such file)',
      'README.md: docs/a.md#nowhere (docs/a.md has no heading with that anchor)',
      'README.md: #nope (README.md has no heading with that anchor)',
      'docs/a.md: #same-2 (docs/a.md has no heading with that anchor)',
    ]);
  });

  it('slugs headings as GitHub does: punctuation and code marks dropped, repeats numbered', () => {
    expect(githubSlug('Alerts: Telegram, Discord, e-mail')).toBe('alerts-telegram-discord-e-mail');
    expect(githubSlug('npm, systemd and Caddy')).toBe('npm-systemd-and-caddy');
    expect(githubSlug('Phone source: connect your phone')).toBe('phone-source-connect-your-phone');
    expect([...anchorsOf('# A\n\n## A\n\n## `A`')]).toEqual(['a', 'a-1', 'a-2']);
  });
});
