// Teams' marks of an AI-written bot message, on every message an agent sends
// there (not on people's messages mirrored from a bridged channel, nor on
// Switchboard's own notices): the "AI generated" label next to the bot's name,
// the agent's sources as Teams citations, and the 👍/👎 feedback buttons, whose
// answer comes back as a `message/submitAction` invoke (handlers.ts) and
// reaches the agent's inbox.
//
// Citations are written the Markdown way: `[1]` in the text, and the source as
// a numbered reference definition on a line of its own, `[1]: https://… "Title"`.
// Teams shows the marker as a citation and the source in its pop-up; the
// definition itself leaves the text.
import type { Definition } from 'mdast';
import { parseMarkdown } from '../../core/format/markdown.ts';
import type { Agent } from '../../core/entities.ts';

/** Teams shows at most this many citations in a message, and refuses more. */
const MAX_CITATIONS = 20;
/** Teams' longest citation title. */
const MAX_NAME = 80;
const CITED = /^\d{1,2}$/;
const WEB_LINK = /^https?:\/\//i;

/** A source as Teams' citation entity shows it (schema.org Claim). */
export interface TeamsCitation {
  '@type': 'Claim';
  position: number;
  appearance: { '@type': 'DigitalDocument'; name: string; url: string };
}

/** What an agent's message carries for Teams' AI features. */
export interface AiParts {
  /** The body without the definitions that became citations. */
  body: string;
  /** The root message entity: the AI label, with the citations. */
  entity: { type: string; citation?: TeamsCitation[] } & Record<string, unknown>;
  /** channelData asking for the feedback buttons. */
  channelData: Record<string, unknown>;
  citations: TeamsCitation[];
}

/** Whether a message from `sender` is an agent's own (the AI label and feedback belong there only). */
export const writtenByAgent = (sender: Agent, via?: string) => sender.kind === 'agent' && !via;

const titleOf = (d: Definition) => {
  const name = d.title?.trim() || d.url.replace(/^https?:\/\//i, '').replace(/\/$/, '');
  return name.length > MAX_NAME ? `${name.slice(0, MAX_NAME - 1)}…` : name;
};

/** The AI label, citations and feedback buttons of an agent's message `body`. */
export function aiParts(body: string): AiParts {
  const definitions: Definition[] = [];
  (function walk(n: { type: string; children?: unknown[] }) {
    if (n.type === 'definition') definitions.push(n as Definition);
    else for (const c of n.children ?? []) walk(c as { type: string; children?: unknown[] });
  })(parseMarkdown(body));
  const cited = definitions
    .filter((d) => CITED.test(d.identifier) && WEB_LINK.test(d.url) && d.position)
    .filter((d) => body.includes(`[${d.identifier}]`))
    .slice(0, MAX_CITATIONS);
  // The definitions leave the text, last first so the earlier offsets hold.
  let text = body;
  for (const d of [...cited].sort((a, b) => b.position!.start.offset! - a.position!.start.offset!))
    text = text.slice(0, d.position!.start.offset!) + text.slice(d.position!.end.offset!);
  const citations: TeamsCitation[] = cited.map((d) => ({
    '@type': 'Claim',
    position: Number(d.identifier),
    appearance: { '@type': 'DigitalDocument', name: titleOf(d), url: d.url },
  }));
  return {
    body: cited.length ? text.trimEnd() : body,
    entity: {
      type: 'https://schema.org/Message',
      '@type': 'Message',
      '@context': 'https://schema.org',
      additionalType: ['AIGeneratedContent'],
      ...(citations.length ? { citation: citations } : {}),
    },
    // feedbackLoop is the documented form; feedbackLoopEnabled the one older clients and SDKs use.
    channelData: { feedbackLoopEnabled: true, feedbackLoop: { type: 'default' } },
    citations,
  };
}

/** The body with its cited sources listed under it as links, for a card (whose text Teams does not link citations in). */
export function withSourcesListed(parts: AiParts): string {
  const sources = parts.citations.map((c) => `[${c.position}] [${c.appearance.name}](${c.appearance.url})`);
  return sources.length ? `${parts.body}\n\n${sources.join('  \n')}` : parts.body;
}

/** Markdown text as rendered (`\[1]`) with its citation markers back as Teams reads them (`[1]`). */
export function withCitationMarkers(text: string, citations: TeamsCitation[]): string {
  if (!citations.length) return text;
  const positions = new Set(citations.map((c) => String(c.position)));
  return text.replace(/\\\[(\d{1,2})\]/g, (whole, n: string) => (positions.has(n) ? `[${n}]` : whole));
}
