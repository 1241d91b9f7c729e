// Agents and people write Markdown; the web chat shows it as HTML made here,
// on the server, through a sanitiser that lets no script, raw HTML, event
// handler or non-web link through. The browser inserts the result as is.
import type { Element, ElementContent, Root as HastRoot } from 'hast';
import type { Nodes, Root } from 'mdast';
import rehypeSanitize, { defaultSchema, type Options as SanitizeSchema } from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { parseMarkdown, walk } from '../core/format/markdown.ts';
import { mentionsIn } from '../core/format/mentions.ts';

const WEB_LINK = /^(https?:|mailto:)/i;

const schema: SanitizeSchema = {
  ...defaultSchema,
  protocols: { ...defaultSchema.protocols, href: ['http', 'https', 'mailto'] },
  // Images are shown as links: loading a stranger's picture tells them who read the message.
  tagNames: (defaultSchema.tagNames ?? []).filter((t) => t !== 'img' && t !== 'picture' && t !== 'source'),
};

const toHtml = unified()
  .use(remarkRehype)
  .use(rehypeSanitize, schema)
  .use(() => finishLinks)
  .use(rehypeStringify)
  .freeze();

/** The sanitised HTML for a Markdown message body. */
export function messageHtml(markdown: string): string {
  const tree = parseMarkdown(markdown);
  showLiterally(tree);
  return toHtml.stringify(toHtml.runSync(tree) as HastRoot);
}

/**
 * Raw HTML in a message is shown as the text it is (never run or dropped);
 * images become links to them; a line break typed in a message stays one, as in every chat.
 */
function showLiterally(tree: Root) {
  walk(tree, (node: Nodes) => {
    if (!('children' in node)) return;
    node.children = node.children.flatMap((child): Nodes[] => {
      if (child.type === 'html')
        return node.type === 'root' ? [{ type: 'paragraph', children: lines(child.value) }] : lines(child.value);
      if (child.type === 'image')
        return [{ type: 'link', url: child.url, children: [{ type: 'text', value: child.alt || child.url }] }];
      if (child.type === 'text') return lines(child.value);
      return [child];
    }) as typeof node.children;
  });
}

function lines(text: string): Array<{ type: 'text'; value: string } | { type: 'break' }> {
  return text
    .split('\n')
    .flatMap((line, i) =>
      i
        ? [{ type: 'break' as const }, { type: 'text' as const, value: line }]
        : [{ type: 'text' as const, value: line }],
    );
}

/** Links open in a new tab without handing over this page; addresses that are not web or mail are dropped. Mentions are marked. */
function finishLinks(tree: HastRoot) {
  const visit = (node: HastRoot | Element) => {
    node.children = node.children.flatMap((child): ElementContent[] => {
      if (child.type === 'text' && node.type === 'element' && !['a', 'code', 'pre'].includes(node.tagName))
        return markMentions(child.value);
      if (child.type !== 'element') return [child as ElementContent];
      if (child.tagName === 'a') {
        const href = String(child.properties.href ?? '');
        if (!WEB_LINK.test(href)) return child.children;
        child.properties = { ...child.properties, target: '_blank', rel: ['noopener', 'noreferrer', 'nofollow'] };
      }
      if (child.tagName !== 'code' && child.tagName !== 'pre') visit(child);
      return [child];
    }) as typeof node.children;
  };
  visit(tree);
}

function markMentions(text: string): ElementContent[] {
  const found = mentionsIn(text);
  if (!found.length) return [{ type: 'text', value: text }];
  const out: ElementContent[] = [];
  let last = 0;
  for (const m of found) {
    if (m.index > last) out.push({ type: 'text', value: text.slice(last, m.index) });
    out.push({
      type: 'element',
      tagName: 'span',
      properties: { className: ['mention'] },
      children: [{ type: 'text', value: m.text }],
    });
    last = m.index + m.text.length;
  }
  if (last < text.length) out.push({ type: 'text', value: text.slice(last) });
  return out;
}
