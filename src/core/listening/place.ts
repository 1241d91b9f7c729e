// Which channel a conversation belongs to, for listening: a web chat channel
// (or a thread under one), or a channel of a chat surface, which that surface
// reads from the conversation's stored address (never a DM or a group chat).
// Each chat surface registers how it names its channels; the core names none.
import type { Conversation } from '../messaging/message.ts';
import type { ExternalSurface } from '../surfaces/surface-ports.ts';
import { WEB_CHAT } from '../entities.ts';
import type { ListenChannels, ListenPlace } from './listen-ports.ts';

const WEB_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/** A channel argument read: a web chat channel by name (it may not exist), or a chat surface's channel. */
export type ParsedPlace = { web: string } | { place: ListenPlace };

/** The chat surfaces' channel naming, registered by each surface module. */
export class ListenPlaces {
  private readonly surfaces = new Map<ExternalSurface, ListenChannels>();

  register(channels: ListenChannels) {
    this.surfaces.set(channels.surface, channels);
  }

  /** The surface's channels, if it registered them in this process. */
  get(surface: string): ListenChannels | undefined {
    return this.surfaces.get(surface);
  }

  /** How to name a channel, as a sentence. */
  help(): string {
    const names = ['`general` (web chat)', ...[...this.surfaces.values()].map((s) => `\`${s.example}\` (${s.label})`)];
    const listed = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names[0];
    return `Name the channel as ${listed}.`;
  }

  /** Reads `general`/`#general` (web chat) or `<surface>:<channel id>`; null when it is none of these. */
  parse(raw: string): ParsedPlace | null {
    const s = raw.trim();
    const colon = s.indexOf(':');
    const surface = colon > 0 ? this.surfaces.get(s.slice(0, colon)) : undefined;
    if (surface) {
      const channelId = surface.parseChannel(s.slice(colon + 1));
      return channelId ? { place: { surface: surface.surface, channelId } } : null;
    }
    const name = s.replace(/^#/, '').toLowerCase();
    return WEB_NAME.test(name) ? { web: name } : null;
  }

  /** How a place reads in sentences: `#general`, `Slack channel C…`. */
  show(p: ListenPlace, webName?: string): string {
    if (p.surface === WEB_CHAT) return `#${webName ?? p.channelId}`;
    return `${this.surfaces.get(p.surface)?.label ?? p.surface} channel ${p.channelId}`;
  }

  /**
   * The channel a conversation is in; null for DMs, group chats and anything
   * else. `parent` is the conversation a web thread hangs off (the caller reads it).
   */
  of(c: Conversation, parent: Conversation | null): ListenPlace | null {
    if (c.kind === 'channel') return { surface: WEB_CHAT, channelId: c.id };
    if (c.kind === 'thread') return parent?.kind === 'channel' ? { surface: WEB_CHAT, channelId: parent.id } : null;
    if (c.kind !== 'external') return null;
    const channelId = this.surfaces.get(c.surface)?.channelOf(c.externalRef ?? {});
    return channelId ? { surface: c.surface, channelId } : null;
  }
}
