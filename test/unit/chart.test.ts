// The overview's bar chart (issue 26, item 8): a sentence when there is nothing to draw, each bar's value
// as its accessible name and in a table, the top of the scale labelled, each tick centred under its bar.
import { describe, expect, it } from 'vitest';
import { type Bar, barChart, type ChartWords } from '../../src/web/console/chart.js';

const words: ChartWords = {
  caption: 'Paid per day',
  empty: 'Nothing was paid.',
  table: 'The figures as a table',
  columns: ['Day', 'Paid', 'Amount'],
};
const money = (n: number) => `Rp ${n}`;
const bar = (day: number, count: number, sum: number, tick = false): Bar => ({
  value: sum,
  label: `day ${day}: ${count} paid, Rp ${sum}`,
  tick: tick ? `d${day}` : null,
  cells: [`d${day}`, String(count), `Rp ${sum}`],
});

/** The attributes of every element with this tag and class, in order. */
function elements(svg: string, tag: string, cls: string): Record<string, string>[] {
  const found = [...svg.matchAll(new RegExp(`<${tag} class="${cls}"([^>]*)>`, 'g'))];
  return found.map((m) => Object.fromEntries([...m[1]!.matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!])));
}
const percent = (value: string | undefined): number => {
  expect(value).toMatch(/^-?[\d.]+%$/);
  return Number.parseFloat(value!);
};

describe('barChart', () => {
  it('says so in a sentence, with no drawing, when every bar is zero', () => {
    const out = barChart([bar(1, 0, 0, true), bar(2, 0, 0), bar(3, 0, 0)], words, money).toString();
    expect(out).toBe('<p class="chart-empty muted">Nothing was paid.</p>');
    expect(barChart([], words, money).toString()).toContain('Nothing was paid.');
  });

  it('names each bar by its value, for screen readers and on hover, and lists every day in a table', () => {
    const bars = [bar(1, 0, 0), bar(2, 3, 60_123), bar(3, 1, 20_500)];
    const out = barChart(bars, words, money).toString();
    expect(out).toContain('role="group" aria-label="Paid per day"');
    const named = elements(out, 'g', 'bar');
    expect(named.map((g) => [g.role, g['aria-label'], g.tabindex])).toEqual(bars.map((b) => ['img', b.label, '0']));
    expect(out).toContain('<title>day 2: 3 paid, Rp 60123</title>');
    // The visible figure of each bar (shown by CSS on hover or focus).
    expect([...out.matchAll(/<text class="figure"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])).toEqual(
      bars.map((b) => b.label),
    );
    // The table: a header per column, a row per day with its count and sum, each cell labelled for a phone.
    expect(out).toMatch(/<details class="chart-table"><summary>The figures as a table<\/summary>/);
    expect([...out.matchAll(/<th[^>]*>([^<]*)<\/th>/g)].map((m) => m[1])).toEqual(['Day', 'Paid', 'Amount']);
    const rows = [...out.matchAll(/<tr>((?:<td[^>]*>[^<]*<\/td>)+)<\/tr>/g)].map((r) =>
      [...r[1]!.matchAll(/<td[^>]*data-label="([^"]*)"[^>]*>([^<]*)<\/td>/g)].map((c) => `${c[1]}=${c[2]}`),
    );
    expect(rows).toEqual([
      ['Day=d1', 'Paid=0', 'Amount=Rp 0'],
      ['Day=d2', 'Paid=3', 'Amount=Rp 60123'],
      ['Day=d3', 'Paid=1', 'Amount=Rp 20500'],
    ]);
  });

  it('labels the top of the scale with the largest value, which the tallest bar reaches', () => {
    const out = barChart([bar(1, 1, 5_000), bar(2, 3, 60_123), bar(3, 1, 20_500)], words, money).toString();
    expect(out).toMatch(/<text class="axis"[^>]*>Rp 60123<\/text>/);
    const fills = elements(out, 'rect', 'fill');
    const top = elements(out, 'line', 'grid')[0]!.y1;
    expect(fills[1]!.y).toBe(top);
    // Heights follow the values: 5,000 and 20,500 are a twelfth and a third of the tallest (rounded to a pixel).
    const tallest = Number(fills[1]!.height);
    expect(Number(fills[0]!.height)).toBe(Math.round((tallest * 5_000) / 60_123));
    expect(Number(fills[2]!.height)).toBe(Math.round((tallest * 20_500) / 60_123));
  });

  it('centres each tick under its own bar, for any number of bars', () => {
    for (const count of [1, 7, 30, 31]) {
      const bars = Array.from({ length: count }, (_, i) => bar(i, 1, 1_000 * (i + 1), i % 7 === (count - 1) % 7));
      const out = barChart(bars, words, money).toString();
      const fills = elements(out, 'rect', 'fill');
      const ticks = [...out.matchAll(/<\/g><text class="tick"([^>]*)>([^<]*)<\/text>/g)];
      expect(ticks.length).toBe(bars.filter((b) => b.tick !== null).length);
      for (const t of ticks) {
        const i = Number(t[2]!.slice(1));
        const x = percent(/ x="([^"]*)"/.exec(t[1]!)![1]);
        const centre = percent(fills[i]!.x) + percent(fills[i]!.width) / 2;
        expect(Math.abs(x - centre)).toBeLessThan(0.002);
        expect(t[1]).toContain('text-anchor="middle"');
      }
      // The last tick is today's, under the last bar: the bars fill the width from 0 to 100 %.
      const last = fills.at(-1)!;
      expect(percent(last.x) + percent(last.width)).toBeLessThanOrEqual(100);
      expect(percent(fills[0]!.x)).toBeGreaterThanOrEqual(0);
    }
  });
});
