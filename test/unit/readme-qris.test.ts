// issue 26, item 5: every QRIS payload the README's code blocks show decodes, so a reader who pastes one
// into `qris decode` or `merchant add` gets an answer, not `bad tag at position 12`.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseQris } from '../../src/domain/qris/index.js';
import { root } from '../helpers/processes.js';

function payloadsInCodeBlocks(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  // A payload starts with tag 00 (length 02, value 01). Quoted, it runs to the closing quote (a merchant
  // name has spaces); bare, to a space or the line's end.
  return blocks.flatMap((block) => [...block.matchAll(/'(000201[^'\n]*)'|"(000201[^"\n]*)"|(000201[^\s'"`]*)/g)].map((m) => m[1] ?? m[2] ?? m[3]!));
}

describe("the README's QRIS payloads", () => {
  const payloads = payloadsInCodeBlocks(readFileSync(`${root}/README.md`, 'utf8'));

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
