import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, html, rawHtml } from '../../src/domain/html.js';

// Whatever a string holds, once escaped it contains none of the characters that open a tag, end a
// quoted attribute or start an entity of its own: every `&` left is one of the five entities.
const inert = (text: string): boolean => !/[<>"']/.test(text) && !/&(?!(?:amp|lt|gt|quot|#39);)/.test(text);

// Strings rich in the characters that matter, as well as any text at all.
const hostile = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme-composite' }),
  fc
    .array(fc.constantFrom('<', '>', '"', "'", '&', '&amp;', '&lt;', '<script>', '" onerror="x', 'a', ' ', '\n'), {
      maxLength: 12,
    })
    .map((p) => p.join('')),
);

describe('html``', () => {
  it('escapes every interpolated string: no tag, no way out of a quoted attribute', () => {
    fc.assert(
      fc.property(hostile, (value) => {
        const out = html`<p title="${value}" data-x='${value}'>${value}</p>`.toString();
        const prefix = '<p title="';
        expect(out.startsWith(prefix)).toBe(true);
        // Everything between the fixed parts is the escaped value, three times.
        const escaped = escapeHtml(value);
        expect(out).toBe(`<p title="${escaped}" data-x='${escaped}'>${escaped}</p>`);
        expect(inert(escaped)).toBe(true);
      }),
    );
  });

  it('escapes reversibly: decoding gives back the value', () => {
    const decode = (s: string) =>
      s.replace(
        /&(amp|lt|gt|quot|#39);/g,
        (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!,
      );
    fc.assert(fc.property(hostile, (value) => decode(html`${value}`.toString()) === value));
  });

  it('inserts nested templates as they are, so nothing is escaped twice', () => {
    fc.assert(
      fc.property(hostile, fc.array(hostile, { maxLength: 5 }), (name, items) => {
        const inner = html`<b>${name}</b>`;
        const list = html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`;
        const out = html`<div>${inner}${list}</div>`.toString();
        expect(out).toBe(
          `<div><b>${escapeHtml(name)}</b><ul>${items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul></div>`,
        );
      }),
    );
  });

  it('renders numbers as they are, null, undefined and false as nothing, and rawHtml without escaping', () => {
    const off = false as boolean;
    expect(html`${12}|${null}|${undefined}|${off && 'x'}|${rawHtml('<br>')}|${'<br>'}`.toString()).toBe(
      '12||||<br>|&lt;br&gt;',
    );
  });
});
