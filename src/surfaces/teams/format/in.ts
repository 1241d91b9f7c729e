// What people write in Teams, as the Markdown Switchboard stores and agents
// read. Teams sends a message twice: `text` (plain, with `<at>Name</at>` for
// mentions) and a `text/html` attachment with the formatting (bold, links,
// code, lists). The HTML is read when present, the text otherwise; other
// attachments (files, cards, images) are not part of the words and are left
// out. The bot's own mention is removed; people's mentions become `@Name`.
// The HTML is read by the reader every surface shares (shared/html-markdown.ts);
// Teams' own elements (mentions) are handled here.
import type { Handle } from 'hast-util-to-mdast';
import { parseMentions } from '../../../core/format/mentions.ts';
import { hastToMarkdown, parseHtml, textOf } from '../../shared/html-markdown.ts';
import { namedAgents } from '../text.ts';

/** An entity of an activity, as Teams sends it (mentions and clientInfo among others). */
export interface TeamsEntity {
  type?: string;
  text?: string;
  mentioned?: { id?: string; name?: string };
}

/** The parts of an activity this reads. */
export interface TeamsMessageText {
  text?: string;
  attachments?: Array<{ contentType?: string; content?: unknown }>;
  entities?: TeamsEntity[];
}

/** A Teams message as Switchboard keeps it. */
export interface TeamsMarkdown {
  /** The Markdown agents receive, the bot's own mention removed, people mentioned as `@Name`. */
  markdown: string;
  /** The agents it names (`ask reviewer …`, `@reviewer`); people mentioned the Teams way are not among them. */
  names: string[];
  /** Those of `names` written as `@name`. */
  mentioned: string[];
  /** Whether it @mentions the bot (Teams sends a bot with RSC permissions the messages that do not, too). */
  mentionsBot: boolean;
}

/** Teams refuses messages past about 28 KB, so anything much longer is not a real message: it is cut here rather than read. */
const MAX_INPUT = 40_000;

/** The message as Markdown without the bot's own mention, and the agent names it gives. */
export function teamsToMarkdown(activity: TeamsMessageText, botId: string | undefined): TeamsMarkdown {
  const attached = activity.attachments?.find((a) => a?.contentType === 'text/html' && typeof a.content === 'string')
    ?.content as string | undefined;
  // Plain text is HTML without tags, except that its line breaks are real.
  const source = attached ?? (activity.text ?? '').replace(/\r?\n/g, '<br>');
  const tree = parseHtml(source, MAX_INPUT);
  const mentions = (activity.entities ?? []).filter((e) => e?.type === 'mention');
  const render = (people: boolean) => hastToMarkdown(tree, handlers({ mentions, botId, people }));
  const agentsOnly = render(false);
  const mentionsBot = botId !== undefined && mentions.some((e) => e.mentioned?.id === botId);
  return { markdown: render(true), names: namedAgents(agentsOnly), mentioned: parseMentions(agentsOnly), mentionsBot };
}

// ---- Teams' elements ------------------------------------------------------------

interface Context {
  mentions: TeamsEntity[];
  botId: string | undefined;
  /** False while reading agent names: people mentioned the Teams way must not be taken for `@name`s. */
  people: boolean;
}

function handlers(ctx: Context): Record<string, Handle> {
  // The n-th mention element is the n-th mention entity, unless it names its index (itemid).
  let read = 0;
  const mention: Handle = (_state, node) => {
    const name = textOf(node).replace(/\s+/g, ' ').trim();
    const itemId = String(node.properties.itemId ?? '');
    const index = /^\d+$/.test(itemId) ? Number(itemId) : read;
    read = index + 1;
    const entity = ctx.mentions[index];
    const bot =
      ctx.botId !== undefined &&
      (entity
        ? entity.mentioned?.id === ctx.botId
        : ctx.mentions.some(
            (e) => e.mentioned?.id === ctx.botId && (e.mentioned?.name === name || e.text === `<at>${name}</at>`),
          ));
    return { type: 'text', value: bot || !ctx.people || !name ? ' ' : `@${name}` };
  };
  return {
    at: mention,
    span: (state, node, parent) =>
      (/schema\.skype\.com\/Mention/i.test(String(node.properties.itemType)) ? mention : all)(state, node, parent),
  };
}

const all: Handle = (state, node) => state.all(node);
