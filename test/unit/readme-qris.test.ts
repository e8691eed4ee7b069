// issue 26, item 5: every QRIS payload the docs' code blocks show (README.md, CONTRIBUTING.md,
// ARCHITECTURE.md and docs/**/*.md) decodes, so a reader who pastes one into `qris decode` or
// `merchant add` gets an answer, not `bad tag at position 12`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseQris } from '../../src/domain/qris/index.js';
import { root } from '../helpers/processes.js';

function payloadsInCodeBlocks(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  // A payload starts with tag 00 (length 02, value 01). Quoted, it runs to the closing quote (a merchant
  // name has spaces); bare, to a space or the line's end.
  return blocks.flatMap((block) =>
    [...block.matchAll(/'(000201[^'\n]*)'|"(000201[^"\n]*)"|(000201[^\s'"`]*)/g)].map((m) => m[1] ?? m[2] ?? m[3]!),
  );
}

/** The Markdown files a reader is pointed at: the root's three, and every page under docs/. */
function docFiles(): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md', ...docs];
}

describe("the docs' QRIS payloads", () => {
  const payloads = docFiles().flatMap((file) => payloadsInCodeBlocks(readFileSync(join(root, file), 'utf8')));

  it('are there (the merchant walkthrough shows one)', () => {
    expect(payloads.length).toBeGreaterThanOrEqual(2);
  });

  it('each decode, as static codes with a merchant name', () => {
    for (const payload of payloads) {
      const parsed = parseQris(payload);
      expect(parsed.merchantName, payload).toBeTruthy();
    }
  });
});
