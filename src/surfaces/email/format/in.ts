// What people write by email, as the Markdown Switchboard stores and agents
// read. A reply carries the whole conversation below (or around) its new text,
// and a signature: agents get the new text, the record keeps everything.
//
// HTML is read when the mail has it (the reader every surface shares), the
// plain text otherwise, which is kept as written: plain-text mail conventions
// (`*bold*`, `> quotes`, `- lists`) are Markdown's own. History is cut in two
// passes. In HTML, the elements mail programs mark it with: Gmail's quote and
// attribution, the `blockquote type="cite"` of Apple Mail and Thunderbird,
// Outlook's reply header (everything after it is history), signatures marked
// by class or id. Then, on the Markdown, what every program writes as text:
// an "On … wrote:" attribution, Outlook's "From: … Sent: …" header block and
// "-----Original Message-----", a trailing block of "> " lines (plain text),
// the "-- " signature delimiter and a mobile "Sent from my …" line. Quotes
// followed by new text (an inline reply) are kept: they are what it answers.
// A forwarded message is content, not history, and is kept.
import type { Element, ElementContent, Nodes as HastNodes, Root as HastRoot } from 'hast';
import { hastToMarkdown, parseHtml, textOf } from '../../shared/html-markdown.ts';

/** A mail's bodies, as mailparser gives them (`html` is false when there is none). */
export interface MailBody {
  text?: string;
  html?: string | false;
}

/** A mail as Switchboard keeps it. */
export interface MailMarkdown {
  /** The new text as Markdown, without quoted history or signature; empty when the mail adds no words. */
  markdown: string;
  /** Everything the mail says, history included, as Markdown: for the record. */
  full: string;
}

/** HTML past this is history (the new text comes first) and costs seconds to convert: it is cut here rather than read. */
const MAX_HTML = 100_000;
const MAX_TEXT = 100_000;

/** The new text of a mail and its whole text, both as Markdown. */
export function mailToMarkdown(mail: MailBody): MailMarkdown {
  if (typeof mail.html === 'string' && mail.html.trim()) {
    const tree = parseHtml(mail.html, MAX_HTML);
    layoutTablesAsBlocks(tree);
    const full = hastToMarkdown(tree);
    if (full) {
      cutHistory(tree);
      return { markdown: stripReply(hastToMarkdown(tree), false), full };
    }
  }
  const text = (mail.text ?? '').slice(0, MAX_TEXT).replace(/\r\n?/g, '\n');
  return { markdown: stripReply(text, true), full: text.trim() };
}

// ---- the text of a reply ----------------------------------------------------

const QUOTED = /^\s*>/;
const BLANK = /^\s*$/;
const SIGNATURE = /^-- ?$/;
const ORIGINAL =
  /^\s*-{2,}\s*(Original Message|Ursprüngliche Nachricht|Message d'origine|Mensaje original|Messaggio originale|Oorspronkelijk bericht)\s*-{2,}\s*$/i;
const FORWARD =
  /^\s*-{2,}\s*(Forwarded message|Weitergeleitete Nachricht|Message transféré|Mensaje reenviado)\s*-{2,}/i;
/** A header line as Outlook writes it, in plain text or bold (`**From:** …`). */
const label = (words: string) => new RegExp(String.raw`^\s*[*_]{0,2}(?:${words})[*_]{0,2}\s?:[*_]{0,2}\s+\S`, 'i');
const FROM_LINE = label('From|Von|De|Van|Da|Fra|Från|Od');
const HEADER_LINE = label(
  'Sent|Date|To|Cc|Subject|Gesendet|Datum|An|Betreff|Envoyé|À|Objet|Enviado|Fecha|Para|Asunto|Inviato|Data|A|Oggetto|Verzonden|Aan|Onderwerp',
);
const FORWARD_SUBJECT = label('Subject|Betreff|Objet|Asunto|Oggetto|Onderwerp');
const FORWARD_PREFIX = /:[*_]{0,2}\s+(FW|Fwd|WG|TR|RV|I)\s*:/i;
/** What Outlook and Markdown put above a reply header: a rule of underscores, dashes or stars. */
const RULE = /^\s*(_{5,}|-{3,}|\*{3,})\s*$/;
/** The first line of an attribution ("On Mon, 6 Jan 2025 Alice wrote:" and its translations); it may wrap over three lines. */
const ATTRIBUTION_START = /^\s*(On|Le|Am|El|Il|Em|Op|Den|W dniu)\s/;
const ATTRIBUTION_END =
  /(\bwrote|a écrit|escribió|ha scritto|escreveu|napisał)\s*:\s*$|\b(schrieb|schreef|skrev)\b[^:]*:\s*$/;
/** The line a phone's mail program adds under the new text. */
const MOBILE =
  /^(Sent from my \S.*|Sent from (Outlook|Mail|Yahoo Mail|Gmail|AOL)\b.*|Get Outlook for (iOS|Android)|Envoyé de mon .+|Envoyé depuis .+|Von meinem .+ gesendet\.?|Gesendet von .+|Enviado desde mi .+|Inviato da .+|Verzonden (met|vanaf) .+|Verstuurd vanaf .+)$/i;

/** The new text of a reply: history, trailing quotes (when `trailingQuotes`), signature and mobile line removed. */
function stripReply(text: string, trailingQuotes: boolean): string {
  const lines = text.split('\n');
  let end = historyStart(lines) ?? lines.length;
  if (trailingQuotes) {
    let start = end;
    while (start > 0 && (BLANK.test(lines[start - 1]) || QUOTED.test(lines[start - 1]))) start -= 1;
    if (lines.slice(start, end).some((l) => QUOTED.test(l))) end = start;
  }
  const signature = lines.slice(0, end).findIndex((l) => SIGNATURE.test(l));
  if (signature >= 0) end = signature;
  while (end > 0 && BLANK.test(lines[end - 1])) end -= 1;
  if (end > 0 && MOBILE.test(wordsOfLine(lines[end - 1]))) end -= 1;
  return lines.slice(0, end).join('\n').trim();
}

/** A Markdown line's words: link targets and emphasis markers left out. */
const wordsOfLine = (line: string) =>
  line
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^[\s*_]+|[\s*_]+$/g, '')
    .replace(/\\(.)/g, '$1');

/** Where quoted history starts, or null when the text has none (a forward's text is content). */
function historyStart(lines: string[]): number | null {
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    if (FORWARD.test(line)) return null;
    if (ORIGINAL.test(line)) return i;
    if (FROM_LINE.test(line)) {
      const block = lines.slice(i + 1, i + 6).filter((l) => !BLANK.test(l));
      const header = block.findIndex((l) => !HEADER_LINE.test(l));
      const fields = header < 0 ? block : block.slice(0, header);
      if (fields.length) {
        if (fields.some((l) => FORWARD_SUBJECT.test(l) && FORWARD_PREFIX.test(l))) return null;
        let start = i;
        while (start > 0 && BLANK.test(lines[start - 1])) start -= 1;
        return start > 0 && RULE.test(lines[start - 1]) ? start - 1 : i;
      }
    }
    const wrap = attribution(lines, i);
    if (wrap && !answersBelow(lines, i + wrap)) return i;
  }
  return null;
}

/** How many lines the attribution starting at `i` takes, or 0 when none starts there. */
function attribution(lines: string[], i: number): number {
  if (!ATTRIBUTION_START.test(lines[i])) return 0;
  let joined = '';
  for (let k = 0; k < 3 && i + k < lines.length && !BLANK.test(lines[i + k]); k += 1) {
    joined = `${joined} ${lines[i + k]}`;
    if (joined.length > 400) return 0;
    if (ATTRIBUTION_END.test(joined)) return k + 1;
  }
  return 0;
}

/** Whether the quoted lines from `from` on are followed by new words: an inline or bottom-posted reply, whose quotes are kept. */
function answersBelow(lines: string[], from: number): boolean {
  let i = from;
  while (i < lines.length && BLANK.test(lines[i])) i += 1;
  if (i === lines.length || !QUOTED.test(lines[i])) return false;
  for (; i < lines.length; i += 1) {
    if (SIGNATURE.test(lines[i])) return false;
    if (!BLANK.test(lines[i]) && !QUOTED.test(lines[i])) return true;
  }
  return false;
}

// ---- history in HTML ----------------------------------------------------------

const classes = (el: Element) => (Array.isArray(el.properties.className) ? el.properties.className.map(String) : []);
const hasClass = (el: Element, ...names: string[]) => classes(el).some((c) => names.includes(c));
const idOf = (el: Element) => String(el.properties.id ?? '');

/** Quotes and attributions as Gmail, Apple Mail, Thunderbird and Yahoo mark them. */
const isQuote = (el: Element) =>
  (el.tagName === 'blockquote' &&
    (String(el.properties.type).toLowerCase() === 'cite' || hasClass(el, 'gmail_quote'))) ||
  hasClass(el, 'gmail_attr', 'moz-cite-prefix', 'yahoo_quoted');
/** Signatures as Gmail, Thunderbird and Outlook mark them. */
const isSignature = (el: Element) =>
  hasClass(el, 'gmail_signature', 'gmail_signature_prefix', 'moz-signature') ||
  /^(x_)?Signature$/.test(idOf(el)) ||
  el.properties.dataSmartmail === 'gmail_signature';
/** Outlook's reply header: everything after it is the message replied to. */
const isReplyHeader = (el: Element) =>
  /^(x_)?divRplyFwdMsg$/.test(idOf(el)) ||
  hasClass(el, 'OutlookMessageHeader') ||
  (el.tagName === 'div' &&
    /border-top:\s*solid/i.test(String(el.properties.style ?? '')) &&
    FROM_LINE.test(textOf(el)));
/** What Outlook puts above its header: the rule and an empty marker. */
const isAboveHeader = (n: HastNodes) =>
  (n.type === 'text' && BLANK.test(n.value)) ||
  (n.type === 'element' && (n.tagName === 'hr' || /^(x_)?appendonsend$/.test(idOf(n)) || !textOf(n).trim()));

/**
 * The new text of an HTML reply, in place: signatures removed, everything from Outlook's reply header (or a "-- " or
 * "-----Original Message-----" line) on cut, and the quotes no new text follows removed.
 */
function cutHistory(tree: HastRoot): void {
  const parents = new Map<HastNodes, HastRoot | Element>();
  const order: HastNodes[] = [];
  const stack: HastNodes[] = [tree];
  while (stack.length) {
    const node = stack.pop()!;
    order.push(node);
    if (!('children' in node)) continue;
    for (let i = node.children.length - 1; i >= 0; i--) {
      parents.set(node.children[i], node);
      stack.push(node.children[i]);
    }
  }
  const inside = (node: HastNodes, test: (el: Element) => boolean) => {
    for (let p = parents.get(node); p; p = parents.get(p)) if (p.type === 'element' && test(p)) return true;
    return false;
  };
  const remove = (node: HastNodes) => {
    const parent = parents.get(node);
    if (parent) parent.children = parent.children.filter((c) => c !== node) as typeof parent.children;
  };
  /** Removes `node` and everything after it in the document. */
  const cutFrom = (node: HastNodes) => {
    let child = node;
    let keepSelf = false;
    for (let p = parents.get(node); p; child = p, p = parents.get(p), keepSelf = true) {
      p.children.splice(p.children.indexOf(child as ElementContent) + (keepSelf ? 1 : 0));
    }
  };

  /** Whether a text has a line to itself: nothing but line breaks and blocks beside it. */
  const aloneOnLine = (node: HastNodes) => {
    const siblings: HastNodes[] = parents.get(node)?.children ?? [];
    const i = siblings.indexOf(node);
    const edge = (n: HastNodes | undefined) =>
      !n ||
      (n.type === 'element' &&
        (n.tagName === 'br' || n.tagName === 'p' || n.tagName === 'div' || BLOCKS.has(n.tagName)));
    return edge(siblings[i - 1]) && edge(siblings[i + 1]);
  };
  const kept = order.filter((n) => !inside(n, isSignature));
  for (const n of order) if (n.type === 'element' && isSignature(n) && !inside(n, isSignature)) remove(n);

  const start = kept.find(
    (n) =>
      (n.type === 'element' && isReplyHeader(n) && !inside(n, isReplyHeader)) ||
      (n.type === 'text' && (ORIGINAL.test(n.value) || (SIGNATURE.test(n.value.trim()) && aloneOnLine(n)))),
  );
  if (start && !(start.type === 'element' && isForward(start))) {
    let first: HastNodes = start;
    const siblings: HastNodes[] = parents.get(start)?.children ?? [];
    for (let i = siblings.indexOf(start) - 1; i >= 0 && isAboveHeader(siblings[i]); i--) first = siblings[i];
    cutFrom(first);
  }

  // Quotes after the last new words are history; those before them are what an inline reply answers.
  const alive = new Set<HastNodes>();
  const live = [tree as HastNodes];
  while (live.length) {
    const node = live.pop()!;
    alive.add(node);
    if ('children' in node) live.push(...node.children);
  }
  const present = kept.filter((n) => alive.has(n));
  let lastWords = -1;
  present.forEach((n, i) => {
    if (n.type === 'text' && n.value.trim() && !inside(n, isQuote)) lastWords = i;
  });
  for (const [i, n] of present.entries())
    if (i > lastWords && n.type === 'element' && isQuote(n) && !inside(n, isQuote)) remove(n);
}

/** Whether Outlook's header introduces a forwarded message (its subject starts FW:), which is content. */
const isForward = (header: Element) =>
  // Line breaks have no text: the subject may follow the line before it without a space.
  /(Subject|Betreff|Objet|Asunto|Oggetto|Onderwerp)\s*:\s*(FW|Fwd|WG|TR|RV|I)\s*:/i.test(textOf(header));

// ---- layout tables --------------------------------------------------------------

const BLOCKS = new Set(['table', 'ul', 'ol', 'blockquote', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const TABLE_PARTS = new Set(['table', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th', 'caption']);

/**
 * Mail programs lay out signatures and whole messages with tables: a table of one column, or whose cells hold
 * paragraphs or other tables, is read as the blocks it shows, not as a Markdown table.
 */
function layoutTablesAsBlocks(tree: HastRoot): void {
  const stack: HastNodes[] = [tree];
  while (stack.length) {
    const node = stack.pop()!;
    if (!('children' in node)) continue;
    if (node.type === 'element' && node.tagName === 'table' && isLayout(node)) asBlocks(node);
    stack.push(...node.children);
  }
}

function isLayout(table: Element): boolean {
  const rows: Element[] = [];
  const cells: Element[] = [];
  const stack: ElementContent[] = [...table.children];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type !== 'element') continue;
    if (n.tagName === 'tr') rows.push(n);
    else if (n.tagName === 'td' || n.tagName === 'th') cells.push(n);
    if (n.tagName !== 'table') stack.push(...n.children);
  }
  const columns = (row: Element) =>
    row.children.filter((c) => c.type === 'element' && /^t[dh]$/.test(c.tagName)).length;
  return rows.every((r) => columns(r) <= 1) || cells.some((c) => hasBlock(c));
}

/** Whether a cell holds more than a line: a table, list, heading, quote or code, or two paragraphs (Outlook puts one in every cell). */
function hasBlock(el: Element): boolean {
  let paragraphs = 0;
  const stack: ElementContent[] = [...el.children];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type !== 'element') continue;
    if (BLOCKS.has(n.tagName)) return true;
    if ((n.tagName === 'p' || n.tagName === 'div') && ++paragraphs > 1) return true;
    stack.push(...n.children);
  }
  return false;
}

/** The table's own parts as divs (a table nested in a cell is judged on its own). */
function asBlocks(table: Element): void {
  const stack: Element[] = [table];
  while (stack.length) {
    const el = stack.pop()!;
    el.tagName = 'div';
    for (const c of el.children)
      if (c.type === 'element' && TABLE_PARTS.has(c.tagName) && c.tagName !== 'table') stack.push(c);
  }
}
