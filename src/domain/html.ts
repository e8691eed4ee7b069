// One way to build HTML (the checkout page, the e-mails): every interpolated value is escaped unless it
// is already HTML made by this module, so a forgotten escape cannot happen at some call site.
//
//   html`<p title="${name}">${name}</p>`        name is escaped, in text and in a quoted attribute
//   html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`   nested results are inserted as they are
//   html`${rawHtml(TRUSTED_CONSTANT)}`          the one explicit way around escaping
//
// Attributes must be quoted: escaping keeps a value inside its quotes, not inside an unquoted attribute.

/** HTML that is safe to insert as it is: only html`` and rawHtml() make one. */
export class SafeHtml {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

/** What may be interpolated: text and numbers are escaped; null, undefined and false render nothing. */
export type HtmlValue = string | number | SafeHtml | null | undefined | false | readonly HtmlValue[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an HTML element or a quoted attribute. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.toString();
  if (typeof value === 'string') return escapeHtml(value);
  if (typeof value === 'number') return String(value);
  if (value === null || value === undefined || value === false) return '';
  return value.map(render).join('');
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** Trusted HTML inserted without escaping: for constants written in this code, never for input. */
export const rawHtml = (text: string): SafeHtml => new SafeHtml(text);
