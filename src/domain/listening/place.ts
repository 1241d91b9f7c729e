// Which channel a conversation belongs to, for listening: a web channel or a
// thread under one, or a Slack or Teams thread of a channel (never a DM or a
// group chat). Reads only the stored address, never a platform.
import type { Conversation } from '../messaging/types.ts';
import type { ListenPlace, ListenSurface } from './ports.ts';

/** Slack channel ids: public (C…) and private (G…) channels; DMs (D…) have no listeners. */
const SLACK_CHANNEL = /^[CG][A-Z0-9]{2,}$/;
/** Teams channel ids as Bot Framework gives them (`19:…@thread.tacv2`, older `@thread.skype`). */
const TEAMS_CHANNEL = /^19:[^\s;]+@thread\.(tacv2|skype)$/;

/** Parses `general`/`#general` (web), `slack:C…` or `teams:19:…@thread.tacv2`; null when it is none of these. */
export function parsePlace(raw: string): { surface: ListenSurface; channel: string } | null {
  const s = raw.trim();
  if (s.startsWith('slack:')) {
    const channel = s.slice('slack:'.length);
    return SLACK_CHANNEL.test(channel) ? { surface: 'slack', channel } : null;
  }
  if (s.startsWith('teams:')) {
    const channel = s.slice('teams:'.length);
    return TEAMS_CHANNEL.test(channel) ? { surface: 'teams', channel } : null;
  }
  const name = s.replace(/^#/, '').toLowerCase();
  return /^[a-z0-9][a-z0-9_-]{0,39}$/.test(name) ? { surface: 'web', channel: name } : null;
}

/** How a place reads in sentences: `#general`, `Slack channel C…`, `Teams channel 19:…`. */
export function showPlace(p: ListenPlace, webName?: string): string {
  if (p.surface === 'web') return `#${webName ?? p.channelId}`;
  return `${p.surface === 'slack' ? 'Slack' : 'Teams'} channel ${p.channelId}`;
}

/**
 * The channel a conversation is in; null for DMs, group chats and anything
 * else. `parent` is the conversation a web thread hangs off (the caller reads it).
 */
export function placeOf(c: Conversation, parent: Conversation | null): ListenPlace | null {
  if (c.surface === 'web' || c.surface === 'mcp') {
    if (c.kind === 'channel') return { surface: 'web', channelId: c.id };
    if (c.kind === 'thread' && parent?.kind === 'channel') return { surface: 'web', channelId: parent.id };
    return null;
  }
  const ref = c.externalRef ?? {};
  if (c.surface === 'slack' && ref.channel && SLACK_CHANNEL.test(ref.channel)) return { surface: 'slack', channelId: ref.channel };
  if (c.surface === 'teams' && ref.type === 'channel' && ref.channel) return { surface: 'teams', channelId: ref.channel };
  return null;
}
