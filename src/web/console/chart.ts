import { html, type SafeHtml } from '../../domain/html.js';

/**
 * A bar chart as inline SVG, drawn on the server: no script, no library, and it prints. `label` names
 * each bar for screen readers (its <title>), `tick` is the short text under some bars.
 */
export function barChart(bars: ReadonlyArray<{ value: number; label: string; tick: string | null }>, caption: string): SafeHtml {
  const width = 600;
  const height = 160;
  const bottom = 18;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const step = width / Math.max(1, bars.length);
  const barWidth = Math.max(2, step * 0.7);
  return html`<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="${caption}">
${bars.map((b, i) => {
  const h = Math.round(((height - bottom - 4) * b.value) / max);
  const x = Math.round(i * step + (step - barWidth) / 2);
  return html`<g><rect x="${x}" y="${height - bottom - h}" width="${Math.round(barWidth)}" height="${h}"><title>${b.label}</title></rect>${
    b.tick === null
      ? ''
      : html`<text x="${Math.min(width - 24, Math.max(24, x + Math.round(barWidth / 2)))}" y="${height - 4}" text-anchor="middle">${b.tick}</text>`
  }</g>`;
})}
</svg>`;
}
