import { html, type SafeHtml } from '../../domain/html.js';

/**
 * A payment source as people read it: its name (escaped), with its id beside it in small type for
 * whoever needs the id; an unnamed source (or a payment's free-text source, such as "manual") by its id.
 */
export function sourceLabel(names: ReadonlyMap<string, string>, id: string): SafeHtml {
  const name = names.get(id);
  return name === undefined
    ? html`<span class="mono">${id}</span>`
    : html`${name} <span class="mono muted">${id}</span>`;
}
