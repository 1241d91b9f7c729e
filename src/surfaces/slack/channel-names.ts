// Names for the channels people refer to as `<#C…>` without a label (Slack
// leaves the label out more and more). conversations.info says the name; it is
// kept for a while per workspace, so a busy channel costs one call, not one a
// message. A channel the app cannot see, or a private one, keeps its id: its
// name is not Switchboard's to pass on to agents and whoever they answer.
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { loggable } from './errors.ts';

/** How long a name (or Slack's word that there is none to give) is kept before Slack is asked again. */
const TTL_MS = 10 * 60_000;
/** After a failed call (rate limit, network), the channel is asked about again sooner. */
const FAILED_TTL_MS = 30_000;
/** Names kept at most; the oldest go first. */
const MAX_ENTRIES = 5_000;

interface Entry {
  at: number;
  ttl: number;
  name: Promise<string | null>;
}

export class ChannelNames {
  private readonly names = new Map<string, Entry>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** The names Slack gives for these channels of a workspace; a channel without one (unknown, private, failed) is left out. */
  async lookup(client: webApi.WebClient, teamId: string, ids: string[]): Promise<Map<string, string>> {
    const found = await Promise.all(
      [...new Set(ids)].map(async (id) => [id, await this.nameOf(client, teamId, id)] as const),
    );
    return new Map(found.filter((f): f is readonly [string, string] => f[1] !== null));
  }

  private nameOf(client: webApi.WebClient, teamId: string, id: string): Promise<string | null> {
    const key = `${teamId}:${id}`;
    const hit = this.names.get(key);
    if (hit && this.now() - hit.at < hit.ttl) return hit.name;
    const entry: Entry = { at: this.now(), ttl: TTL_MS, name: Promise.resolve(null) };
    entry.name = this.fetch(client, teamId, id, entry);
    this.names.delete(key);
    this.names.set(key, entry);
    if (this.names.size > MAX_ENTRIES) this.names.delete(this.names.keys().next().value!);
    return entry.name;
  }

  private async fetch(client: webApi.WebClient, teamId: string, id: string, entry: Entry): Promise<string | null> {
    try {
      const { channel } = await client.conversations.info({ channel: id });
      if (!channel || channel.is_private || channel.is_im || channel.is_mpim) return null;
      return channel.name || null;
    } catch (err) {
      // channel_not_found is an answer; anything else is worth asking again soon.
      if ((err as { data?: { error?: string } }).data?.error !== 'channel_not_found') entry.ttl = FAILED_TTL_MS;
      this.logger.warn(
        { err: loggable(err), teamId, channelId: id },
        'could not read the name of a mentioned Slack channel',
      );
      return null;
    }
  }
}
