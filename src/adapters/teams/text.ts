// Reading what people write to the bot in Teams: the bot's own <at> mention,
// other people's mentions, HTML entities, and the agents a message names
// (`ask reviewer to …`, `@reviewer`, `@alice/builder`). Pure functions.
import { parseMentions } from '../../domain/format/mentions.ts';

/** A mention entity as Teams sends it. */
export interface MentionEntity {
  type?: string;
  text?: string;
  mentioned?: { id?: string; name?: string };
}

const ENTITIES: Record<string, string> = { nbsp: ' ', amp: '&', lt: '<', gt: '>', quot: '"', apos: '\'', '#39': '\'' };

function decodeEntities(text: string): string {
  return text.replace(/&(nbsp|amp|lt|gt|quot|apos|#39);/g, (_m, name: string) => ENTITIES[name]!);
}

/**
 * The message without the bot's own mention, other `<at>Name</at>` mentions
 * turned into plain names, entities decoded and spaces collapsed: what agents receive.
 */
export function withoutBotMention(text: string, entities: MentionEntity[], botId: string | undefined): string {
  let out = text;
  for (const e of entities) {
    if (e.type === 'mention' && e.mentioned?.id === botId && e.text) out = out.split(e.text).join(' ');
  }
  out = out.replace(/<at>([^<]*)<\/at>/g, '$1');
  return decodeEntities(out).replace(/[ \t\u00a0]{2,}/g, ' ').replace(/[ \t]*\n[ \t]*/g, '\n').trim();
}

const ASK = /^(?:please\s+)?(?:ask|tell)\s+@?([a-z0-9][a-z0-9_.-]*(?:\/[a-z0-9][a-z0-9_.-]*)?)\b/i;

/**
 * The agents a message names, in order, without repeats, lowercased: the one
 * after a leading `ask`/`tell`, then every `@name`.
 */
export function namedAgents(text: string): string[] {
  const names: string[] = [];
  const asked = ASK.exec(text.trim())?.[1]?.toLowerCase().replace(/[.\-_]+$/, '');
  if (asked) names.push(asked);
  for (const n of parseMentions(text)) if (!names.includes(n)) names.push(n);
  return names;
}

const COMMANDS = ['help', 'agents', 'link', 'unlink'] as const;
export type Command = (typeof COMMANDS)[number];

/** A one-word command said to the bot (`help`, `agents`, `link`, `unlink`), or null. */
export function commandOf(text: string): Command | null {
  const word = text.trim().toLowerCase().replace(/[.!?]+$/, '');
  return (COMMANDS as readonly string[]).includes(word) ? (word as Command) : null;
}
