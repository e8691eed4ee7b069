import { html, type SafeHtml } from '../../domain/html.js';

export interface Bar {
  value: number;
  /** The bar in words ("26 Nov: 3 paid, Rp 60.123"): its accessible name, and the figure shown on hover or focus. */
  label: string;
  /** The short text centred under the bar, or null for none. */
  tick: string | null;
  /** The bar's row in the table of figures, one cell per column. */
  cells: readonly string[];
}

export interface ChartWords {
  /** What the chart is: the name of its group of bars. */
  caption: string;
  /** The sentence shown instead of the chart when every bar is zero. */
  empty: string;
  /** The summary that opens the table of figures. */
  table: string;
  columns: readonly string[];
}

// Heights in CSS pixels. Widths are percentages of the chart's box, so the drawing stretches to any screen
// while its text keeps its real size (a viewBox would shrink 10 px labels to 5 px on a phone).
const HEIGHT = 220;
const FIGURE_Y = 14;
const AXIS_Y = 36;
const TOP = 44;
const TICK_Y = HEIGHT - 6;
const BASE = HEIGHT - 24;

/** A percentage for an SVG attribute, short and exact enough to line a label up with its bar. */
const pct = (n: number): string => `${Number(n.toFixed(3))}%`;

/**
 * A bar chart drawn on the server as SVG: no script, no library, and it prints. Each bar is a focusable
 * image named by its label, whose figure shows above the chart on hover or focus; the top of the scale
 * is labelled with the largest value; ticks sit centred under their own bars; the same figures follow as
 * a table for anyone who would rather read them. With nothing to draw it says so in a sentence.
 */
export function barChart(bars: readonly Bar[], words: ChartWords, formatValue: (value: number) => string): SafeHtml {
  const max = Math.max(0, ...bars.map((b) => b.value));
  if (max === 0) return html`<p class="chart-empty muted">${words.empty}</p>`;
  const step = 100 / bars.length;
  const barWidth = step * 0.7;
  const svg = html`<svg class="chart" width="100%" height="${HEIGHT}" role="group" aria-label="${words.caption}">
<line class="grid" x1="0" x2="100%" y1="${TOP}" y2="${TOP}"/><line class="base" x1="0" x2="100%" y1="${BASE}" y2="${BASE}"/>
<text class="axis" x="0" y="${AXIS_Y}" aria-hidden="true">${formatValue(max)}</text>
${bars.map((b, i) => {
  const h = Math.round(((BASE - TOP) * b.value) / max);
  const centre = (i + 0.5) * step;
  return html`<g class="bar" tabindex="0" role="img" aria-label="${b.label}"><title>${b.label}</title>
<rect class="slot" x="${pct(i * step)}" y="${TOP}" width="${pct(step)}" height="${BASE - TOP}"/>
<rect class="fill" x="${pct(centre - barWidth / 2)}" y="${BASE - h}" width="${pct(barWidth)}" height="${h}"/>
<text class="figure" x="100%" y="${FIGURE_Y}" text-anchor="end">${b.label}</text></g>${
    b.tick === null
      ? ''
      : html`<text class="tick" x="${pct(centre)}" y="${TICK_Y}" text-anchor="middle" aria-hidden="true">${b.tick}</text>`
  }`;
})}
</svg>`;
  // The first column names the row; the others are figures, right-aligned like every number column.
  const cell = (text: string, c: number) =>
    html`<td${c > 0 ? html` class="num"` : ''} data-label="${words.columns[c] ?? ''}">${text}</td>`;
  const table = html`<details class="chart-table"><summary>${words.table}</summary><div class="table-wrap"><table>
<thead><tr>${words.columns.map((c, i) => html`<th${i > 0 ? html` class="num"` : ''}>${c}</th>`)}</tr></thead>
<tbody>${bars.map((b) => html`<tr>${b.cells.map(cell)}</tr>`)}</tbody></table></div></details>`;
  return html`<div class="chart-box">${svg}</div>${table}`;
}
