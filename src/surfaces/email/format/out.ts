// Agents write Markdown; a mail carries it twice. The text/plain part is the
// Markdown as written (plain-text mail conventions are Markdown's own), its
// links as "words (address)" so that the address can be read and copied. The
// text/html part is the HTML the web chat shows (src/http/message-html.ts):
// rendered on the server through a sanitiser, so nothing the agent writes
// becomes markup of its own, raw HTML shows as text, and only web and mail
// links are links.
import type { Nodes } from 'mdast';
import { parseMarkdown, walk } from '../../../core/format/markdown.ts';
import { messageHtml } from '../../../http/message-html.ts';
import { WEB_LINK } from '../../shared/html-markdown.ts';

/** A mail's two bodies. */
export interface MailBodies {
  text: string;
  html: string;
}

/** An agent's Markdown as the text/plain and text/html parts of a mail. */
export function markdownToMail(markdown: string): MailBodies {
  return { text: plainText(markdown), html: messageHtml(markdown) };
}

/** The Markdown with every inline link and picture written `words (address)`, the rest exactly as written. */
function plainText(markdown: string): string {
  const edits: Array<{ start: number; end: number; value: string }> = [];
  walk(parseMarkdown(markdown), (node: Nodes) => {
    if ((node.type !== 'link' && node.type !== 'image') || !node.position) return;
    const words = node.type === 'image' ? (node.alt ?? '') : wordsOf(markdown, node.children as Nodes[]);
    const address = node.url;
    // An address written as the link's words (`<https://…>`, `www.…`, `<bob@example.com>`) is not repeated;
    // one that is not a web or mail address is not one to follow (the HTML part does not link it either).
    const same = !words || [words, `http://${words}`, `mailto:${words}`].includes(address);
    const value = !WEB_LINK.test(address) ? words : same ? words || address : `${words} (${address})`;
    edits.push({ start: node.position.start.offset!, end: node.position.end.offset!, value });
    return false;
  });
  let text = markdown;
  for (const { start, end, value } of edits.reverse()) text = text.slice(0, start) + value + text.slice(end);
  return text.trim();
}

/** A link's words as written in the source (with their own emphasis or code). */
function wordsOf(source: string, children: Nodes[]): string {
  const first = children[0]?.position?.start.offset;
  const last = children.at(-1)?.position?.end.offset;
  return first === undefined || last === undefined ? '' : source.slice(first, last);
}
