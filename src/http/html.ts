// Server-rendered HTML: every value put into an `html` template is escaped
// unless it is itself markup from `html` (or deliberately marked with
// `trustedHtml`), so a forgotten escape cannot happen.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe to place in element content or a quoted attribute value. */
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ENTITIES[c]);

/** Markup that is already safe: the result of an `html` template. */
export class SafeHtml {
  constructor(private readonly markup: string) {}
  toString() {
    return this.markup;
  }
}

/** What a template accepts: text (escaped), markup, nothing (`null`, `undefined`, `false` render as empty) or lists of these. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(v: HtmlValue): string {
  if (v instanceof SafeHtml) return v.toString();
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false || v === true) return '';
  return escapeHtml(String(v));
}

/** html`<p>${text}</p>`: interpolations are escaped; nested templates and lists of them are kept as markup. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/**
 * Marks markup made elsewhere as safe (for example Markdown already run
 * through the sanitiser). Every call site is a place to review.
 */
export const trustedHtml = (markup: string) => new SafeHtml(markup);
